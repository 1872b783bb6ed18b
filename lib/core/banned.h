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
 * point) would fail to compile. Macros defined before the poison may still
 * expand to them. With _FORTIFY_SOURCE and clang, glibc makes some of them
 * macros (sprintf, strcpy ...), and poisoning a macro is a warning (an error
 * in CI): they are #undef'd first, which unfortifies only calls that cannot
 * be written any more.
 */
#ifndef GA_BANNED_H
#define GA_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef sprintf
#undef vsprintf
#undef strcpy
#undef strcat
#undef gets
#undef atoi
#undef atol
#undef atof
#pragma GCC poison sprintf vsprintf strcpy strcat gets atoi atol atof

#endif
