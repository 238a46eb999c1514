// sdt_cxx.cc - throws and catches C++ exceptions: libstdc++'s own SDT
// markers (libstdcxx:throw, catch, rethrow) fire, as Debian's glibc has
// none. usage: sdt_cxx [N]   (N exceptions thrown, each caught, one
// rethrown and caught again)
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static void thrower(int i)
{
	throw std::runtime_error(i ? "odd" : "zero");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			try {
				thrower(i);
			} catch (const std::exception &) {
				caught++;
				if (i == 0)
					throw;
			}
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	printf("caught %d\n", caught);
	return 0;
}
