/* d_main.h - the dtrace program (DTrace's command line on cstap's passes) */
#ifndef CSTAP_D_MAIN_H
#define CSTAP_D_MAIN_H

/* dtrace ARGS...: main() calls it when run as dtrace or stap --dtrace */
int dtrace_main(int argc, char **argv);

#endif
