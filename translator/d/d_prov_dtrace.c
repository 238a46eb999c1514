/* d_prov_dtrace.c - the dtrace provider: BEGIN, END and ERROR, as
 * cstap's begin, end and error probes. They are DTrace's probes 1, 2
 * and 3; their module and function are empty and arg0.. are 0 (d_lower.c's
 * defaults).
 */
#include "d/d_provider.h"

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	static const char *const names[][2] = { { "BEGIN", "begin" }, { "END", "end" }, { "ERROR", "error" } };

	for (int i = 0; i < 3; i++)
		if (d_probe_matches(d, "dtrace", "", "", names[i][0]))
			vec_push(out, d_probe_get(fam, "dtrace", "", "", names[i][0], names[i][1], 0));
}

const struct d_family d_fam_dtrace = {
	.name = "dtrace",
	.match = match,
	.attrs = { "Stable", "Stable", "Common", "Stable", "Stable", "Common" },
};
