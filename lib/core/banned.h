/*
 * banned.h - makes a use of a banned libc function a compile error in lib/ and
 * src/ (CMakeLists.txt force-includes it with -include), so the house rule
 * "no sprintf, strcpy, atoi ..." holds without a reviewer or a grep.
 *
 * The replacements: snprintf/vsnprintf (sprintf, vsprintf), memcpy with a
 * known length or ga_strdup (strcpy, strcat), ga_buf_add (strcat), fgets or
 * getline (gets), strtol/strtoull/strtod or ga_parse_* (atoi, atol, atof).
 *
 * The system headers that declare them come first: after the poison a
 * declaration is an error too, and a header first read later that named one
 * of them (in a declaration, an inline function or a macro defined after this
 * point) would fail to compile. Macros defined before the poison, such as
 * glibc's _FORTIFY_SOURCE wrappers, may still expand to them.
 */
#ifndef GA_BANNED_H
#define GA_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC poison sprintf vsprintf strcpy strcat gets atoi atol atof

#endif
