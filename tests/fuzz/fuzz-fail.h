/* cudaoptics — LGPL-2.1-or-later */

/* A broken contract aborts, so libFuzzer (and the replay test) report it
 * like a crash; every target's checks end here. */

#ifndef __CO_FUZZ_FAIL_H__
#define __CO_FUZZ_FAIL_H__

#include <stdio.h>
#include <stdlib.h>
#include <glib.h>

#define CO_FUZZ_FAIL(...) G_STMT_START {                                \
    fprintf (stderr, "fuzz contract broken: " __VA_ARGS__);             \
    fputc ('\n', stderr);                                               \
    abort ();                                                           \
  } G_STMT_END

#endif
