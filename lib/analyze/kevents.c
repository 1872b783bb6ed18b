/*
 * kevents.c - the kernel-log line parser and the Xid catalogue.
 *
 * One line in, at most one event out. The parser strips the timestamp prefix
 * of whichever form the line has (/dev/kmsg record, dmesg, dmesg -T, journalctl
 * short/short-iso/short-monotonic), then looks for fixed substrings; every scan
 * is bounded by the (truncated) line length and nothing is allocated, so it is
 * linear in the input and safe on garbage (fuzz/fuzz_kevents.c).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuaudit/kmsg.h"

/* --- small bounded scanners --- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_word(char c)
{
	return hexval(c) >= 0 || (c >= 'g' && c <= 'z') || (c >= 'G' && c <= 'Z') || c == '_';
}

static const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/* Parse up to 19 decimal digits at *p (bounded by end); advances *p. */
static bool parse_u64(const char **p, const char *end, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	size_t k = 0;
	while (s < end && is_digit(*s) && k < 19) {
		v = v * 10 + (uint64_t)(*s - '0');
		s++, k++;
	}
	if (!k || (s < end && is_digit(*s)))
		return false;
	*p = s;
	*ret = v;
	return true;
}

static bool hexrun(const char *s, const char *end, size_t n)
{
	if ((size_t)(end - s) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (hexval(s[i]) < 0)
			return false;
	return true;
}

static unsigned hexnum(const char *s, size_t n)
{
	unsigned v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 16 + (unsigned)hexval(s[i]);
	return v;
}

/*
 * Match a PCI address at s: [PCI:]DDDD:BB:DD[.F] or BB:DD.F. Returns the
 * number of bytes used (0: none) and writes the sysfs form.
 */
static size_t match_addr(const char *s, const char *end, char out[16])
{
	const char *p = s;
	if (end - p >= 4 && !memcmp(p, "PCI:", 4))
		p += 4;
	unsigned dom = 0, bus, dev, fn = 0;
	if (hexrun(p, end, 4) && end - p > 4 && p[4] == ':' && hexrun(p + 5, end, 2) && end - p > 7 &&
	    p[7] == ':' && hexrun(p + 8, end, 2)) {
		dom = hexnum(p, 4);
		bus = hexnum(p + 5, 2);
		dev = hexnum(p + 8, 2);
		p += 10;
	} else if (hexrun(p, end, 2) && end - p > 2 && p[2] == ':' && hexrun(p + 3, end, 2) && end - p > 5 &&
	           p[5] == '.' && hexrun(p + 6, end, 1)) {
		bus = hexnum(p, 2);
		dev = hexnum(p + 3, 2);
		p += 5;
	} else {
		return 0;
	}
	if (end - p >= 2 && p[0] == '.' && hexval(p[1]) >= 0 && hexval(p[1]) < 8) {
		fn = (unsigned)hexval(p[1]);
		p += 2;
	}
	if (p < end && is_word(*p))
		return 0; /* part of a longer token */
	if (dev > 0x1f)
		return 0;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom & 0xffff, bus, dev, fn);
	return (size_t)(p - s);
}

int ga_pci_addr_normalize(const char *s, size_t len, char out[16])
{
	char tmp[16];
	if (!s)
		return -EINVAL;
	size_t k = match_addr(s, s + len, tmp);
	if (!k || k != len)
		return -EINVAL;
	memcpy(out, tmp, sizeof(tmp));
	return 0;
}

/* The first PCI address in s[0..n) that starts a token. */
static bool first_addr(const char *s, size_t n, char out[16])
{
	const char *end = s + n;
	for (const char *p = s; p < end; p++) {
		if (p > s && is_word(p[-1]))
			continue;
		if (hexval(*p) < 0 && *p != 'P')
			continue;
		if (match_addr(p, end, out))
			return true;
	}
	return false;
}

/* A whole word in s[0..n). */
static bool has_word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	const char *end = s + n;
	for (const char *p = s; p && p < end;) {
		p = memmem(p, (size_t)(end - p), w, wl);
		if (!p)
			return false;
		bool left = p == s || !is_word(p[-1]);
		bool right = p + wl >= end || (!is_word(p[wl]) && p[wl] != '-');
		if (left && right && !(p > s && p[-1] == '-'))
			return true;
		p++;
	}
	return false;
}

static enum ga_kev_fatal fatal_token(const char *s, size_t n)
{
	if (has_word(s, n, "Nonfatal") || has_word(s, n, "NonFatal") || find(s, n, "Non-fatal") ||
	    find(s, n, "Non-Fatal") || find(s, n, "non-fatal"))
		return GA_KEV_FATAL_NO;
	if (has_word(s, n, "Fatal") || has_word(s, n, "FATAL"))
		return GA_KEV_FATAL_YES;
	return GA_KEV_FATAL_UNSAID;
}

/* --- time prefixes --- */

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int month_of(const char *s)
{
	static const char m[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	for (int i = 0; i < 12; i++)
		if (!memcmp(s, m + 3 * i, 3))
			return i + 1;
	return 0;
}

static bool two(const char *s, unsigned *v)
{
	if (!is_digit(s[0]) || !is_digit(s[1]))
		return false;
	*v = (unsigned)(s[0] - '0') * 10 + (unsigned)(s[1] - '0');
	return true;
}

/* "HH:MM:SS" -> seconds of day. */
static bool hms(const char *s, const char *end, unsigned *ret)
{
	unsigned h, m, sec;
	if (end - s < 8 || !two(s, &h) || s[2] != ':' || !two(s + 3, &m) || s[5] != ':' ||
	    !two(s + 6, &sec) || h > 23 || m > 59 || sec > 60)
		return false;
	*ret = h * 3600 + m * 60 + sec;
	return true;
}

/* A local civil time (this process's TZ: set TZ to the writer's zone) to Unix seconds. */
static bool local_time(int year, int mon, unsigned day, unsigned secs, int64_t *wall)
{
	struct tm tm = { 0 };
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = (int)day;
	tm.tm_hour = (int)(secs / 3600);
	tm.tm_min = (int)(secs / 60 % 60);
	tm.tm_sec = (int)(secs % 60);
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*wall = (int64_t)t;
	return true;
}

/* "[Mon Jan  1 12:00:00 2024]" (dmesg -T, local time). Returns bytes used or 0. */
static size_t dmesg_t(const char *s, const char *end, int64_t *wall)
{
	/* [Www Mmm dd HH:MM:SS YYYY] = 26 bytes */
	if (end - s < 26 || s[0] != '[' || s[4] != ' ' || s[8] != ' ' || s[25] != ']')
		return 0;
	int mon = month_of(s + 5);
	unsigned day, secs, yy1, yy2;
	char d0 = s[9] == ' ' ? '0' : s[9];
	char dd[2] = { d0, s[10] };
	if (!mon || !two(dd, &day) || s[11] != ' ' || !hms(s + 12, end, &secs) || s[20] != ' ' ||
	    !two(s + 21, &yy1) || !two(s + 23, &yy2) || day < 1 || day > 31)
		return 0;
	if (!local_time((int)(yy1 * 100 + yy2), mon, day, secs, wall))
		return 0;
	return 26;
}

/*
 * "Dec 01 14:41:00 " / "Dec  1 14:41:00 " (syslog, journalctl -o short) and
 * "Dec 01 14:41:00.123456 " (short-precise): local time without a year.
 * Returns bytes used (through the space) or 0; month, day and seconds of day filled.
 */
static size_t syslog_time(const char *s, const char *end, int *mon, unsigned *day, unsigned *secs)
{
	if (end - s < 16 || !(*mon = month_of(s)) || s[3] != ' ' || s[6] != ' ')
		return 0;
	char dd[2] = { s[4] == ' ' ? '0' : s[4], s[5] };
	if (!two(dd, day) || *day < 1 || *day > 31 || !hms(s + 7, end, secs))
		return 0;
	const char *p = s + 15;
	if (p < end && *p == '.') {
		p++;
		const char *f = p;
		while (p < end && is_digit(*p) && p - f < 9)
			p++;
		if (p == f)
			return 0;
	}
	if (p >= end || *p != ' ')
		return 0;
	return (size_t)(p + 1 - s);
}

/*
 * The year of a year-less stamp: the latest year that puts it no more than a
 * day after ref (a log is read after it was written; a day of slack for
 * clocks and zones). False when no reference is known.
 */
static bool syslog_wall(const struct ga_kparse *st, int mon, unsigned day, unsigned secs, int64_t *wall)
{
	if (!st || !st->year_ref_s.set)
		return false;
	time_t ref = (time_t)st->year_ref_s.v;
	struct tm now;
	if (!gmtime_r(&ref, &now))
		return false;
	for (int y = now.tm_year + 1900 + 1; y >= now.tm_year + 1900 - 1; y--) {
		int64_t t;
		if (local_time(y, mon, day, secs, &t) && t <= st->year_ref_s.v + 86400) {
			*wall = t;
			return true;
		}
	}
	return false;
}

/* "[ 1234.567890]" -> seconds since boot. Returns bytes used or 0. */
static size_t bracket_boot(const char *s, const char *end, double *boot)
{
	const char *p = s + 1;
	if (p >= end || s[0] != '[')
		return 0;
	while (p < end && *p == ' ')
		p++;
	uint64_t sec, frac = 0;
	if (!parse_u64(&p, end, &sec))
		return 0;
	double scale = 1;
	if (p < end && *p == '.') {
		p++;
		const char *f = p;
		if (!parse_u64(&p, end, &frac) || p - f > 9)
			return 0;
		for (ptrdiff_t i = 0; i < p - f; i++)
			scale *= 10;
	}
	if (p >= end || *p != ']')
		return 0;
	*boot = (double)sec + (double)frac / scale;
	return (size_t)(p + 1 - s);
}

/* "2024-01-01T12:00:00[.ffffff][Z|+hhmm|+hh:mm]" (journalctl -o short-iso). */
static size_t iso_time(const char *s, const char *end, int64_t *wall)
{
	unsigned y1, y2, mo, d, secs;
	if (end - s < 19 || !two(s, &y1) || !two(s + 2, &y2) || s[4] != '-' || !two(s + 5, &mo) ||
	    s[7] != '-' || !two(s + 8, &d) || s[10] != 'T' || !hms(s + 11, end, &secs) || mo < 1 || mo > 12 ||
	    d < 1 || d > 31)
		return 0;
	const char *p = s + 19;
	if (p < end && *p == '.') {
		p++;
		while (p < end && is_digit(*p))
			p++;
	}
	int64_t off = 0;
	if (p < end && *p == 'Z') {
		p++;
	} else if (p < end && (*p == '+' || *p == '-')) {
		unsigned oh, om;
		int sign = *p == '-' ? -1 : 1;
		if (end - p >= 5 && two(p + 1, &oh) && two(p + 3, &om))
			p += 5;
		else if (end - p >= 6 && two(p + 1, &oh) && p[3] == ':' && two(p + 4, &om))
			p += 6;
		else
			return 0;
		off = sign * (int64_t)(oh * 3600 + om * 60);
	}
	*wall = days_from_civil((int64_t)y1 * 100 + y2, mo, d) * 86400 + secs - off;
	return (size_t)(p - s);
}

/* Skip "HOST kernel: " (journalctl); returns bytes used or 0. */
static size_t journal_host(const char *s, const char *end)
{
	const char *p = s;
	while (p < end && *p != ' ' && p - s < 256)
		p++;
	if (p == s || end - p < 9 || memcmp(p, " kernel: ", 9))
		return 0;
	return (size_t)(p + 9 - s);
}

/* Strip the time prefix; fill ev times; return the message start. */
static const char *strip_prefix(const struct ga_kparse *st, const char *s, const char *end,
                                struct ga_kevent *ev)
{
	const char *p = s;
	/* /dev/kmsg: prio,seq,usec,flags;message */
	if (p < end && is_digit(*p)) {
		const char *q = p;
		uint64_t prio, seq, usec;
		if (parse_u64(&q, end, &prio) && q < end && *q == ',' && (++q, parse_u64(&q, end, &seq)) &&
		    q < end && *q == ',' && (++q, parse_u64(&q, end, &usec)) && q < end && *q == ',') {
			const char *semi = memchr(q, ';', (size_t)(end - q) < 64 ? (size_t)(end - q) : 64);
			if (semi) {
				ev->boot_s.v = (double)usec / 1e6;
				ev->boot_s.set = true;
				return semi + 1;
			}
		}
	}
	if (p < end && *p == '[') {
		double boot;
		int64_t wall;
		size_t k = bracket_boot(p, end, &boot);
		if (k) {
			ev->boot_s.v = boot;
			ev->boot_s.set = true;
		} else if ((k = dmesg_t(p, end, &wall))) {
			ev->wall_s.v = wall;
			ev->wall_s.set = true;
		}
		if (k) {
			p += k;
			if (p < end && *p == ' ')
				p++;
			return p + journal_host(p, end); /* short-monotonic: "[ 1.2] host kernel: " */
		}
		return p;
	}
	int64_t wall;
	size_t k = iso_time(p, end, &wall);
	if (k && p + k < end && p[k] == ' ') {
		size_t h = journal_host(p + k + 1, end);
		if (h) {
			ev->wall_s.v = wall;
			ev->wall_s.set = true;
			const char *q = p + k + 1 + h;
			double boot;
			size_t b = bracket_boot(q, end, &boot); /* rsyslog keeps the kernel's stamp */
			if (b) {
				ev->boot_s.v = boot;
				ev->boot_s.set = true;
				q += b;
			}
			return q;
		}
	}
	/*
	 * syslog (kern.log and messages under /var/log) and journalctl -o short /
	 * short-precise: "Dec  1 14:41:00[.ffffff] host kernel: [ 12.34] ..."; the
	 * year comes from the caller's reference (syslog_wall), and a kernel
	 * timestamp after the tag gives the seconds since boot as well.
	 */
	int mon;
	unsigned day, secs;
	if ((k = syslog_time(p, end, &mon, &day, &secs))) {
		size_t h = journal_host(p + k, end);
		if (h) {
			if (syslog_wall(st, mon, day, secs, &wall)) {
				ev->wall_s.v = wall;
				ev->wall_s.set = true;
			}
			const char *q = p + k + h;
			double boot;
			size_t b = bracket_boot(q, end, &boot);
			if (b) {
				ev->boot_s.v = boot;
				ev->boot_s.set = true;
				q += b;
			}
			return q;
		}
	}
	return p;
}

/* --- the parser --- */

/*
 * The GPU recovery action a line names: "changed from 0x0 (None) to 0x2 (Node
 * Reboot Required)" (the value after " to "), or the words alone. -1: none.
 */
static int recovery_words(const char *s, size_t n)
{
	/*
	 * Xid 63 of the drivers before row remapping: "Dynamic Page Retirement: New page retired, reboot to
	 * activate (0x...)" (NVIDIA's Dynamic Page Retirement guide prints it "New retired page, reload the
	 * driver to activate"): the page stays in use until the driver reloads, and NVML's pending-retirement
	 * query calls for a reboot. The line's own words ask for a reboot (h84-swnv). Read on the whole line,
	 * before the table below: their " to " would otherwise start the search at "activate". Row Remapper's
	 * "reset gpu to activate" is not read here: NVIDIA's catalogue (IGNORE) stays its action.
	 */
	if (find(s, n, "reboot to activate") || find(s, n, "reload the driver to activate"))
		return 2;
	static const struct {
		const char *words;
		int value;
	} words[] = {
		{ "Drain and Reset", 4 },        { "Drain P2P", 3 },          { "Node Reboot Required", 2 },
		{ "System Reboot Required", 7 }, { "Bus Reset Required", 6 }, { "GPU Reset Required", 1 },
	};
	const char *end = s + n;
	const char *to = find(s, n, " to ");
	if (to) {
		s = to + 4;
		n = (size_t)(end - s);
		if (n >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0 &&
		    (n == 3 || hexval(s[3]) < 0))
			return hexval(s[2]);
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (find(s, n, words[i].words))
			return words[i].value;
	if (to && find(s, n, "(None)"))
		return 0;
	return -1;
}

/* "0x0000abcd" at *p: the word, *p moved past it. */
static bool hex_word(const char **p, const char *end, uint64_t *ret)
{
	const char *q = *p;
	if (end - q < 3 || q[0] != '0' || (q[1] != 'x' && q[1] != 'X'))
		return false;
	q += 2;
	uint64_t v = 0;
	size_t k = 0;
	while (q < end && hexval(*q) >= 0 && k < 16)
		v = v * 16 + (uint64_t)hexval(*q++), k++;
	if (!k)
		return false;
	*p = q, *ret = v;
	return true;
}

/*
 * NVLink5 Xids: "145, RLW_REMAP Fatal XC0 i0 Link 00 (0x00000004 0x00000040 ...)" from
 * after the number: the unit, and the second word in the parentheses (the error status).
 */
static void nvl5_fields(const char *p, const char *end, struct ga_kevent *ev)
{
	while (p < end && (*p == ',' || *p == ' '))
		p++;
	size_t k = 0;
	while (p + k < end && k + 1 < sizeof(ev->nvl_unit) &&
	       ((p[k] >= 'A' && p[k] <= 'Z') || (p[k] >= '0' && p[k] <= '9') || p[k] == '_'))
		k++;
	if (!k || p + k >= end || p[k] != ' ')
		return;
	memcpy(ev->nvl_unit, p, k);
	ev->nvl_unit[k] = '\0';
	const char *open = memchr(p, '(', (size_t)(end - p));
	if (!open)
		return;
	const char *q = open + 1;
	uint64_t intrinfo, status;
	if (!hex_word(&q, end, &intrinfo) || q >= end || *q != ' ')
		return;
	q++;
	if (hex_word(&q, end, &status) && status <= UINT32_MAX) {
		ev->nvl_status.v = status;
		ev->nvl_status.set = true;
	}
}

/* "NVRM: Xid (PCI:0000:41:00): 79, ..." / "SXid (PCI:...): 12028, ..." at tag. */
static bool parse_xid(const char *tag, size_t taglen, const char *end, struct ga_kevent *ev)
{
	const char *p = tag + taglen;
	const char *close = memchr(p, ')', (size_t)(end - p) < 64 ? (size_t)(end - p) : 64);
	if (!close)
		return false;
	char addr[16];
	const char *a = p;
	while (a < close && *a == ' ')
		a++;
	if (match_addr(a, close, addr))
		memcpy(ev->address, addr, sizeof(addr));
	p = close + 1;
	if (p < end && *p == ':')
		p++;
	while (p < end && *p == ' ')
		p++;
	uint64_t code;
	if (!parse_u64(&p, end, &code))
		return false;
	ev->code.v = code;
	ev->code.set = true;
	ev->fatal = fatal_token(p, (size_t)(end - p));
	if (taglen == 11 && code >= 144 && code <= 150)
		nvl5_fields(p, end, ev);
	if (taglen == 6) {
		/*
		 * The NVSwitch driver follows an SXid line with the same error's record:
		 * "12028, Severity 0 Engine instance 32 Sub-engine instance 00" and
		 * "12028, Data {0x...}". They complete the event, they are no new one.
		 */
		const char *q = p;
		while (q < end && (*q == ',' || *q == ' '))
			q++;
		size_t r = (size_t)(end - q);
		if ((r >= 9 && !memcmp(q, "Severity ", 9)) || (r >= 6 && !memcmp(q, "Data {", 6)))
			ev->folded = true;
	}
	const char *lk = find(p, (size_t)(end - p), "Link ");
	if (lk) {
		const char *q = lk + 5;
		uint64_t link;
		if (parse_u64(&q, end, &link) && link < 100000) {
			ev->link.v = link;
			ev->link.set = true;
		}
	}
	int rec = recovery_words(p, (size_t)(end - p));
	if (rec >= 0) {
		ev->recovery.v = (uint64_t)rec;
		ev->recovery.set = true;
	}
	return true;
}

static void set_addr_after(const char *m, const char *end, const char *key, struct ga_kevent *ev)
{
	const char *k = find(m, (size_t)(end - m), key);
	char addr[16];
	if (k) {
		const char *p = k + strlen(key);
		while (p < end && *p == ' ')
			p++;
		if (match_addr(p, end, addr)) {
			memcpy(ev->address, addr, sizeof(addr));
			return;
		}
	}
	if (first_addr(m, (size_t)(end - m), addr))
		memcpy(ev->address, addr, sizeof(addr));
}

static void set_first_addr(const char *m, const char *end, struct ga_kevent *ev)
{
	char addr[16];
	if (first_addr(m, (size_t)(end - m), addr))
		memcpy(ev->address, addr, sizeof(addr));
}

/*
 * A cheap first pass: every line classify() can match contains one of these
 * letter pairs (Xid/SXid, "fallen off", NVRM/NVIDIA, RmInit, amdgpu, AER,
 * "blocked", "Killed"/"Kill", "Machine"/"machine", "Hardware", "hub" of the VM
 * fault header, "VM_L2" of its status word, "recovery" of the driver's "GPU
 * recovery action changed", "severity=C"/"=U" and "status/mask" of the AER detail
 * lines of kernels that print them without "AER:"). Most kernel-log
 * lines contain none, and one pass over the bytes is far cheaper than the
 * dozen substring searches classify() would do (65% of the time on a 100k-line
 * log before this existed).
 */
static const char *const anchors[] = { "Xi", "ff", "NV", "Rm", "dg", "AE", "ck", "Ki",
	                               "hi", "Ha", "hu", "_L", "ov", "=C", "=U", "s/" };

static bool maybe_event(const char *m, const char *end)
{
	static unsigned char pair[65536 / 8];
	static bool ready;
	if (!ready) {
		for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++) {
			unsigned v =
			        ((unsigned)(unsigned char)anchors[i][0] << 8) | (unsigned char)anchors[i][1];
			pair[v >> 3] |= (unsigned char)(1u << (v & 7));
		}
		ready = true;
	}
	for (const char *p = m; p + 1 < end; p++) {
		unsigned v = ((unsigned)(unsigned char)p[0] << 8) | (unsigned char)p[1];
		if (pair[v >> 3] & (1u << (v & 7)))
			return true;
	}
	return false;
}

/*
 * amdgpu VM faults (gmc_v9/v10/v11 interrupt handlers): the header line
 * "[gfxhub0] retry page fault (src_id:0 ring:24 vmid:3 pasid:32769, ...)",
 * also "[mmhub0]", "[gfxhub] page fault", "no-retry"; then a process line, an
 * "in page starting at address" line and the status word
 * "GCVM_L2_PROTECTION_FAULT_STATUS:0x00301031" (MMVM_ or VM_ on some
 * generations). The header is the event; the status word within the next few
 * lines is folded into it.
 */
#define VM_FAULT_STATUS_WITHIN 6 /* lines after the header */

static bool vm_fault(struct ga_kparse *st, const char *m, const char *end, struct ga_kevent *ev)
{
	ev->kind = GA_KEV_AMDGPU_VM_FAULT;
	set_first_addr(m, end, ev);
	/* "ring:24 vmid:3 pasid:..." (gmc v9+), "vm_id:3 pas_id:..." (older gmc_v9 wording) */
	const char *v = find(m, (size_t)(end - m), " vmid:");
	size_t skip = strlen(" vmid:");
	if (!v) {
		v = find(m, (size_t)(end - m), " vm_id:");
		skip = strlen(" vm_id:");
	}
	if (v && v + skip < end && v[skip] >= '0' && v[skip] <= '9') {
		uint64_t id = 0;
		for (const char *p = v + skip; p < end && *p >= '0' && *p <= '9' && id < 1000000; p++)
			id = id * 10 + (uint64_t)(*p - '0');
		ev->vmid.v = id;
		ev->vmid.set = true;
	}
	if (st) {
		memcpy(st->vm_fault_address, ev->address, sizeof(st->vm_fault_address));
		st->vm_fault_lines = VM_FAULT_STATUS_WITHIN + 1; /* the next line counts down to 6 */
		st->vm_fault_open = true;
	}
	return true;
}

static bool vm_fault_status(struct ga_kparse *st, const char *m, const char *end, const char *t,
                            struct ga_kevent *ev)
{
	ev->kind = GA_KEV_AMDGPU_VM_FAULT;
	set_first_addr(m, end, ev);
	const char *p = t + strlen("VM_L2_PROTECTION_FAULT_STATUS:");
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		uint64_t v = 0;
		size_t k = 0;
		while (p < end && hexval(*p) >= 0 && k < 16)
			v = v * 16 + (uint64_t)hexval(*p++), k++;
		if (k)
			ev->code.v = v, ev->code.set = true;
	}
	if (st && st->vm_fault_open && !strcmp(st->vm_fault_address, ev->address)) {
		ev->folded = true;
		st->vm_fault_open = false;
	}
	return true; /* alone (a grep of the log): a fault of its own */
}

/*
 * PCIe AER detail (drivers/pci/pcie/aer.c aer_print_error): "<dev>: PCIe Bus Error:
 * severity=Corrected, type=Physical Layer, (Receiver ID)" sets the class, then
 * "<dev>:   device [10de:2330] error status/mask=00000001/0000e000" names the error
 * types (status & ~mask, the bits the kernel counts). The detail folds into the
 * "... error received: <dev>" event before it; alone it is an event of its own.
 */
static void aer_severity_line(struct ga_kparse *st, const char *m, const char *end, const char *v)
{
	size_t r = (size_t)(end - v);
	if (!st)
		return;
	st->aer_class = 0;
	if ((r >= 9 && !memcmp(v, "Corrected", 9)) || (r >= 11 && !memcmp(v, "Correctable", 11)))
		st->aer_class = 1;
	else if (find(v, r, "Non-Fatal)"))
		st->aer_class = 2;
	else if (find(v, r, "Fatal)"))
		st->aer_class = 3;
	char addr[16];
	if (!first_addr(m, (size_t)(end - m), addr))
		st->aer_class = 0;
	else
		memcpy(st->aer_address, addr, sizeof(addr));
}

static bool aer_status_line(struct ga_kparse *st, const char *m, const char *end, const char *v,
                            struct ga_kevent *ev)
{
	char addr[16];
	uint64_t status, mask;
	const char *p = v;
	if (!st || !st->aer_class || !first_addr(m, (size_t)(end - m), addr) || strcmp(addr, st->aer_address))
		return false; /* which register the word is from is unknown */
	status = 0, mask = 0;
	size_t k = 0;
	while (p < end && hexval(*p) >= 0 && k < 8)
		status = status * 16 + (uint64_t)hexval(*p++), k++;
	if (k != 8 || p >= end || *p != '/')
		return false;
	p++, k = 0;
	while (p < end && hexval(*p) >= 0 && k < 8)
		mask = mask * 16 + (uint64_t)hexval(*p++), k++;
	if (k != 8)
		return false;
	ev->kind = st->aer_class == 1 ? GA_KEV_AER_CORRECTED : GA_KEV_AER_UNCORRECTED;
	ev->fatal = st->aer_class == 3   ? GA_KEV_FATAL_YES
	            : st->aer_class == 2 ? GA_KEV_FATAL_NO
	                                 : GA_KEV_FATAL_UNSAID;
	ev->aer_bits = (uint32_t)(status & ~mask);
	if (!ev->aer_bits)
		ev->aer_bits = (uint32_t)status;
	memcpy(ev->address, addr, sizeof(addr));
	st->aer_class = 0;
	if (st->aer_rx_open && st->aer_rx_kind == ev->kind && !strcmp(st->aer_rx_address, addr)) {
		ev->folded = true; /* the types of the message counted at its "received" line */
		st->aer_rx_open = false;
	}
	return true;
}

static void aer_received(struct ga_kparse *st, const struct ga_kevent *ev)
{
	if (!st)
		return;
	memcpy(st->aer_rx_address, ev->address, sizeof(st->aer_rx_address));
	st->aer_rx_kind = ev->kind;
	st->aer_rx_open = ev->address[0] != '\0';
}

/*
 * A machine-check record's bank status word ("Machine Check: 0 Bank 7: 8c00004000010090"):
 * IA32_MCi_STATUS / AMD's MCA_STATUS, bit 63 VAL and bit 61 UC (Intel SDM vol. 3B 16.3.2.2),
 * so a first hex digit of a, b, e or f is uncorrected, 8, 9, c or d corrected (as explain's
 * machine-check rows read it). No status word: uncorrected, as before.
 */
static enum ga_kev_fatal mce_status_fatal(const char *m, size_t n)
{
	const char *b = find(m, n, " Bank ");
	if (!b)
		return GA_KEV_FATAL_YES;
	const char *end = m + n, *p = b + 6;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p + 2 >= end || p[0] != ':' || p[1] != ' ')
		return GA_KEV_FATAL_YES;
	int top = hexval(p[2]); /* bits 63..60: VAL, OVER, UC, EN */
	return top >= 0 && (top & 8) && !(top & 2) ? GA_KEV_FATAL_NO : GA_KEV_FATAL_YES;
}

static bool classify(struct ga_kparse *st, const char *m, const char *end, struct ga_kevent *ev)
{
	size_t n = (size_t)(end - m);
	const char *t;
	if ((t = find(m, n, "NVRM: Xid (")))
		return ev->kind = GA_KEV_XID, parse_xid(t, 11, end, ev);
	if ((t = find(m, n, "SXid (")))
		return ev->kind = GA_KEV_SXID, parse_xid(t, 6, end, ev);
	if ((t = find(m, n, "GPU recovery action changed"))) {
		/* "nvidia: GPU 0000:41:00.0: GPU recovery action changed from 0x0 to 0x1": Xid 154's words */
		int rec = recovery_words(t, (size_t)(end - t));
		if (rec < 0)
			return false;
		ev->kind = GA_KEV_XID;
		ev->code.v = 154, ev->code.set = true;
		ev->recovery.v = (uint64_t)rec, ev->recovery.set = true;
		set_first_addr(m, end, ev);
		return true;
	}
	/* the driver's words; "fallen off of the bus" as people retell them */
	if (find(m, n, "fallen off the bus") || find(m, n, "fallen off of the bus")) {
		ev->kind = GA_KEV_GPU_LOST;
		set_first_addr(m, end, ev);
		if (!ev->address[0] && st)
			memcpy(ev->address, st->pending_address, sizeof(ev->address));
		if (st)
			st->pending_address[0] = '\0';
		return true;
	}
	if ((t = find(m, n, "NVRM: The NVIDIA GPU "))) {
		char addr[16];
		if (st && match_addr(t + 21, end, addr))
			memcpy(st->pending_address, addr, sizeof(addr));
		return false;
	}
	if (find(m, n, "RmInitAdapter failed")) {
		ev->kind = GA_KEV_NVRM_INIT_FAILURE;
		set_first_addr(m, end, ev);
		return true;
	}
	if (find(m, n, "NVRM: API mismatch"))
		return ev->kind = GA_KEV_NVRM_API_MISMATCH, true;
	if ((t = find(m, n, "hub")) && find(t, (size_t)(end - t), "page fault (src_id:"))
		return vm_fault(st, m, end, ev);
	if ((t = find(m, n, "VM_L2_PROTECTION_FAULT_STATUS:")))
		return vm_fault_status(st, m, end, t, ev);
	if (find(m, n, "amdgpu")) {
		if (find(m, n, "GPU reset begin")) {
			ev->kind = GA_KEV_AMDGPU_RESET;
			set_first_addr(m, end, ev);
			if (st) {
				memcpy(st->reset_address, ev->address, sizeof(st->reset_address));
				st->reset_open = true;
			}
			return true;
		}
		if ((t = find(m, n, "GPU reset(")) && find(t, (size_t)(end - t), ") succeeded")) {
			const char *p = t + 10;
			uint64_t c;
			if (parse_u64(&p, end, &c))
				ev->code.v = c, ev->code.set = true;
			ev->kind = GA_KEV_AMDGPU_RESET;
			set_first_addr(m, end, ev);
			/* the end of the reset that began above; alone, a reset we saw only end */
			if (st && st->reset_open && !strcmp(st->reset_address, ev->address))
				ev->folded = true;
			if (st)
				st->reset_open = false;
			return true;
		}
		if ((t = find(m, n, "GPU reset(")) && find(t, (size_t)(end - t), ") failed")) {
			const char *p = t + 10;
			uint64_t c;
			if (parse_u64(&p, end, &c))
				ev->code.v = c, ev->code.set = true;
			ev->kind = GA_KEV_AMDGPU_RESET;
			ev->fatal = GA_KEV_FATAL_YES;
			set_first_addr(m, end, ev);
			if (st)
				st->reset_open = false;
			return true;
		}
		if ((t = find(m, n, "ring ")) && find(t, (size_t)(end - t), " timeout")) {
			ev->kind = GA_KEV_AMDGPU_RING_TIMEOUT;
			set_first_addr(m, end, ev);
			return true;
		}
		/* amdgpu_ras_eeprom.c at the bad-page threshold (amdgpu.bad_page_threshold): the table
		 * is full, the GPU is due for RMA; "exceeds 90% of threshold" is the early warning and
		 * is not this */
		if (find(m, n, "reaches threshold value") || find(m, n, "exceed threshold:") ||
		    find(m, n, "AMD Service Action Guide") || find(m, n, "runtime service will be halt")) {
			ev->kind = GA_KEV_AMDGPU_RAS_RMA;
			set_first_addr(m, end, ev);
			return true;
		}
		/* the all-clear "no uncorrectable hardware errors detected" is not an error (as explain's
		 * amdgpu-ras-uncorrectable, which needs a count) */
		if ((find(m, n, "uncorrectable hardware error") ||
		     (find(m, n, "RAS") && find(m, n, "uncorrectable"))) &&
		    !find(m, n, "no uncorrectable")) {
			ev->kind = GA_KEV_AMDGPU_RAS;
			set_first_addr(m, end, ev);
			return true;
		}
	}
	if ((t = find(m, n, "PCIe Bus Error: severity="))) {
		aer_severity_line(st, m, end, t + 25);
		return false; /* the class of the detail that follows */
	}
	if ((t = find(m, n, "error status/mask=")))
		return aer_status_line(st, m, end, t + 18, ev);
	if ((t = find(m, n, "AER: "))) {
		const char *p = t + 5;
		size_t r = (size_t)(end - p);
		if (find(p, r, "Corrected error received") || find(p, r, "Correctable error received") ||
		    find(p, r, "Correctable error message received") ||
		    find(p, r, "Multiple Corrected error received")) {
			ev->kind = GA_KEV_AER_CORRECTED;
			set_addr_after(p, end,
			               find(p, r, "received from") ? "received from" : "received:", ev);
			aer_received(st, ev);
			return true;
		}
		if ((find(p, r, "Uncorrected (") || find(p, r, "Uncorrectable (")) &&
		    find(p, r, "received")) {
			ev->kind = GA_KEV_AER_UNCORRECTED;
			ev->fatal = find(p, r, "Non-Fatal)") ? GA_KEV_FATAL_NO : GA_KEV_FATAL_YES;
			set_addr_after(p, end,
			               find(p, r, "received from") ? "received from" : "received:", ev);
			aer_received(st, ev);
			return true;
		}
	}
	if (find(m, n, "blocked for more than ") && find(m, n, "task "))
		return ev->kind = GA_KEV_HUNG_TASK, true;
	if (find(m, n, "of memory: Killed process") || find(m, n, "Out of memory: Kill process"))
		return ev->kind = GA_KEV_OOM_KILL, true;
	if (find(m, n, "achine check events logged")) {
		ev->kind = GA_KEV_MCE;
		ev->fatal = GA_KEV_FATAL_NO;
		return true;
	}
	if (find(m, n, "[Hardware Error]") && find(m, n, "Machine Check")) {
		ev->kind = GA_KEV_MCE;
		ev->fatal = mce_status_fatal(m, n);
		return true;
	}
	/* AMD's decoder (drivers/edac/mce_amd.c): "CPU:1 (19:18:1) MC17_STATUS[Over|CE|...]: 0x..." */
	if (find(m, n, "[Hardware Error]") && find(m, n, "_STATUS[")) {
		bool ue = find(m, n, "|UE|") != NULL, ce = find(m, n, "|CE|") != NULL;
		if (ue || ce) {
			ev->kind = GA_KEV_MCE;
			ev->fatal = ue ? GA_KEV_FATAL_YES : GA_KEV_FATAL_NO;
			return true;
		}
	}
	return false;
}

int ga_kevent_parse(struct ga_kparse *st, const char *line, size_t len, struct ga_kevent *ev)
{
	struct ga_kevent e;
	memset(&e, 0, sizeof(e));
	if (!line)
		return 0;
	if (len > GA_KLINE_MAX)
		len = GA_KLINE_MAX;
	const char *end = line + len;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	const char *m = strip_prefix(st, line, end, &e);
	if (st && m == line && line < end && (*line == ' ' || *line == '\t')) {
		e.boot_s = st->last_boot_s; /* an indented continuation of the previous line */
		e.wall_s = st->last_wall_s;
	} else if (st && m != line) {
		st->last_boot_s = e.boot_s;
		st->last_wall_s = e.wall_s;
	}
	while (m < end && (*m == ' ' || *m == '\t'))
		m++;
	if (st && st->vm_fault_open && !--st->vm_fault_lines)
		st->vm_fault_open = false;
	if (!maybe_event(m, end) || !classify(st, m, end, &e))
		return 0;
	e.message = m;
	e.message_len = (size_t)(end - m);
	e.severity = ga_kev_severity(&e);
	*ev = e;
	return 1;
}

/* --- the catalogue: NVIDIA's rows (lib/core/xid.def) --- */

#define A_INFO "record"
/* an uncorrectable RAS error whose recovery the line does not tell (health refines it) */
#define A_RAS                                                                                        \
	"drain: the driver resets the GPU to recover, and no outcome of that reset follows in the "  \
	"log; read it (GPU reset(N) succeeded or failed) and the retired pages (amd-smi bad-pages) " \
	"against amdgpu.bad_page_threshold"

const char *ga_xid_action_text(enum ga_action a)
{
	switch (a) {
	case GA_ACT_NONE:
		return A_INFO;
	case GA_ACT_RESTART_WORKLOAD:
		return "restart the job; check the application if it repeats";
	case GA_ACT_RESET_GPU:
		return "drain the GPU and reset it";
	case GA_ACT_REBOOT:
		return "drain and reboot the node";
	case GA_ACT_DRAIN:
		return "drain; a person checks the hardware (power cables, seating)";
	case GA_ACT_REPLACE:
		return "drain; replace the GPU";
	case GA_ACT_FIX_CONFIG:
		return "update the driver or firmware";
	case GA_ACT_INVESTIGATE:
	case GA_ACT__COUNT:
		break;
	}
	return "investigate (the catalogue gives no automatic step)";
}

static enum ga_xid_group group_of(const struct ga_xid_fact *f)
{
	if (!f || ga_xid_unused(f))
		return f && f->action == GA_ACT_NONE ? GA_XID_INFO : GA_XID_UNKNOWN;
	switch (f->action) {
	case GA_ACT_NONE:
		return GA_XID_INFO;
	case GA_ACT_RESTART_WORKLOAD:
		return GA_XID_APP;
	case GA_ACT_REPLACE:
		return GA_XID_HW_INSPECT;
	case GA_ACT_RESET_GPU:
	case GA_ACT_REBOOT:
	case GA_ACT_DRAIN:
	case GA_ACT_FIX_CONFIG:
		return f->cause == GA_CAUSE_NODE_HARDWARE ? GA_XID_HARDWARE : GA_XID_DRIVER_FATAL;
	case GA_ACT_INVESTIGATE:
	case GA_ACT__COUNT:
		break;
	}
	return GA_XID_EXTRA;
}

int ga_xid_lookup(uint64_t xid, struct ga_xid_info *ret)
{
	const struct ga_xid_fact *f = ga_xid_fact(xid);
	struct ga_xid_info x = { .xid = xid,
		                 .group = GA_XID_UNKNOWN,
		                 .severity = GA_SEV_WARNING,
		                 .name = "",
		                 .action = "look the Xid up in NVIDIA's Xid catalogue",
		                 .mnemonic = "",
		                 .immediate = GA_XB_NONE_GIVEN,
		                 .investigatory = "",
		                 .act = GA_ACT_INVESTIGATE,
		                 .cause = GA_CAUSE_UNKNOWN };
	if (f) {
		x.group = group_of(f);
		x.severity = f->severity;
		x.name = f->description;
		x.mnemonic = f->mnemonic;
		x.immediate = f->immediate;
		x.investigatory = f->investigatory;
		x.act = f->action;
		x.cause = f->cause;
		x.unused = ga_xid_unused(f);
		x.action = ga_xid_action_text(f->action);
		if (x.unused && f->action == GA_ACT_INVESTIGATE)
			x.action = "investigate: NVIDIA lists this Xid as unused";
		else if (f->immediate == GA_XB_WORKFLOW_XID_45)
			x.action = "follow the other Xid on this GPU; alone, restart nvidia-fabricmanager";
		else if (f->immediate == GA_XB_XID_154)
			x.action = "act on the recovery action the line names";
		else if (f->immediate == GA_XB_WORKFLOW_NVLINK5_ERR)
			x.action = "act on the line's sub-error (NVIDIA's 144-150 decode), else its "
			           "Fatal/Nonfatal token";
	}
	*ret = x;
	return f != NULL;
}

const struct ga_xid_nvl5_fact *ga_kev_nvl5(const struct ga_kevent *ev)
{
	if (ev->kind != GA_KEV_XID || !ev->code.set || !ev->nvl_unit[0] || !ev->nvl_status.set)
		return NULL;
	return ga_xid_nvl5_decode(ev->code.v, ev->nvl_unit, strlen(ev->nvl_unit), (uint32_t)ev->nvl_status.v);
}

int ga_kev_xid_line(const struct ga_kevent *ev, enum ga_action *ret_action, enum ga_severity *ret_sev)
{
	if (ev->kind != GA_KEV_XID || !ev->code.set)
		return 0;
	if (ev->recovery.set) {
		ga_xid_recovery_default((int)ev->recovery.v, ret_action, ret_sev);
		return 1;
	}
	const struct ga_xid_fact *f = ga_xid_fact(ev->code.v);
	if (!f || f->immediate != GA_XB_WORKFLOW_NVLINK5_ERR)
		return 0;
	const struct ga_xid_nvl5_fact *d = ga_kev_nvl5(ev);
	if (d) {
		/* NVIDIA's decode of the unit's error status (docs/xid.md "NVLink5 sub-errors") */
		*ret_action = d->action, *ret_sev = d->gseverity;
		return 1;
	}
	if (ev->fatal == GA_KEV_FATAL_UNSAID)
		return 0;
	if (ev->fatal == GA_KEV_FATAL_YES)
		*ret_action = GA_ACT_RESET_GPU, *ret_sev = GA_SEV_ERROR;
	else
		*ret_action = GA_ACT_NONE, *ret_sev = GA_SEV_INFO;
	return 1;
}

const struct ga_sxid_fact *ga_kev_sxid(const struct ga_kevent *ev, enum ga_action *ret_action,
                                       enum ga_severity *ret_sev)
{
	*ret_action = GA_ACT_INVESTIGATE, *ret_sev = GA_SEV_WARNING;
	if (ev->kind != GA_KEV_SXID || !ev->code.set)
		return NULL;
	int fatal = ev->fatal == GA_KEV_FATAL_YES ? 1 : ev->fatal == GA_KEV_FATAL_NO ? 0 : -1;
	return ga_sxid_decide(ev->code.v, fatal, ret_action, ret_sev);
}

/* What an SXid's action means for an NVSwitch (docs/xid.md "SXids"). */
const char *ga_sxid_action_text(enum ga_action a)
{
	switch (a) {
	case GA_ACT_NONE:
		return "record (the NVSwitch corrected it or it has no impact)";
	case GA_ACT_RESTART_WORKLOAD:
		return "restart the job that uses the link; drain if it repeats";
	case GA_ACT_REBOOT:
		return "drain and reboot: resets the NVSwitches and GPUs of the fabric";
	case GA_ACT_DRAIN:
		return "drain; a person checks the link's mechanical connections";
	case GA_ACT_FIX_CONFIG:
		return "check the fabric partition configuration (NVSwitch-audit)";
	case GA_ACT_RESET_GPU:
	case GA_ACT_REPLACE:
	case GA_ACT_INVESTIGATE:
	case GA_ACT__COUNT:
		break;
	}
	return "investigate; read /var/log/fabricmanager.log";
}

enum ga_severity ga_kev_severity(const struct ga_kevent *ev)
{
	struct ga_xid_info x;
	switch (ev->kind) {
	case GA_KEV_XID: {
		enum ga_action a;
		enum ga_severity s;
		if (ga_kev_xid_line(ev, &a, &s))
			return s;
		ga_xid_lookup(ev->code.v, &x);
		if (ev->fatal == GA_KEV_FATAL_YES && x.severity < GA_SEV_ERROR)
			return GA_SEV_ERROR;
		return x.severity;
	}
	case GA_KEV_SXID: {
		enum ga_action a;
		enum ga_severity s;
		ga_kev_sxid(ev, &a, &s);
		return s;
	}
	case GA_KEV_GPU_LOST:
	case GA_KEV_AMDGPU_RAS:
	case GA_KEV_AMDGPU_RAS_RMA:
		return GA_SEV_CRITICAL;
	case GA_KEV_AMDGPU_RESET:
		return ev->fatal == GA_KEV_FATAL_YES ? GA_SEV_CRITICAL : GA_SEV_ERROR;
	case GA_KEV_AMDGPU_RING_TIMEOUT:
	case GA_KEV_NVRM_INIT_FAILURE:
	case GA_KEV_NVRM_API_MISMATCH:
		return GA_SEV_ERROR;
	case GA_KEV_AER_CORRECTED:
		return GA_SEV_INFO;
	case GA_KEV_AER_UNCORRECTED:
		return ev->fatal == GA_KEV_FATAL_NO ? GA_SEV_ERROR : GA_SEV_CRITICAL;
	case GA_KEV_HUNG_TASK:
	case GA_KEV_OOM_KILL:
	case GA_KEV_AMDGPU_VM_FAULT:
		return GA_SEV_WARNING;
	case GA_KEV_MCE:
		return ev->fatal == GA_KEV_FATAL_NO ? GA_SEV_WARNING : GA_SEV_ERROR;
	case GA_KEV__COUNT:
		break;
	}
	return GA_SEV_WARNING;
}

const char *ga_kev_action(const struct ga_kevent *ev)
{
	struct ga_xid_info x;
	switch (ev->kind) {
	case GA_KEV_XID: {
		enum ga_action a;
		enum ga_severity s;
		if (ga_kev_xid_line(ev, &a, &s))
			return ga_xid_action_text(a);
		ga_xid_lookup(ev->code.v, &x);
		return x.action;
	}
	case GA_KEV_SXID: {
		enum ga_action a;
		enum ga_severity s;
		ga_kev_sxid(ev, &a, &s);
		return ga_sxid_action_text(a);
	}
	case GA_KEV_GPU_LOST:
		return "drain; restart the bare-metal host; inspect if it recurs";
	case GA_KEV_AMDGPU_RESET:
		return ev->fatal == GA_KEV_FATAL_YES ? "drain and reboot"
		                                     : "drain; check the job that hung the GPU; reboot if "
		                                       "resets repeat";
	case GA_KEV_AMDGPU_RING_TIMEOUT:
		return "check the job that hung the GPU; drain if it repeats";
	case GA_KEV_AMDGPU_RAS:
		return A_RAS;
	case GA_KEV_AMDGPU_RAS_RMA:
		return "replace the GPU: its retired-page table reached amdgpu.bad_page_threshold "
		       "(amd-smi bad-pages); AMD's driver points to its Service Action Guide";
	case GA_KEV_AER_CORRECTED:
		return "record; from 10 errors of one type on the device (a storm): reseat or replace "
		       "the card, riser or cable";
	case GA_KEV_AER_UNCORRECTED:
		return ev->fatal == GA_KEV_FATAL_NO
		               ? "drain: a transaction was lost, the link still works; investigate the "
		                 "device and its driver"
		               : "drain: the link is unreliable; reboot to reset it, reseat or replace the "
		                 "device or riser if it recurs";
	case GA_KEV_HUNG_TASK:
		return "find the blocked process (often a driver call on a wedged GPU)";
	case GA_KEV_OOM_KILL:
		return "check the job's host memory use";
	case GA_KEV_MCE:
		return "inspect CPU and memory (rasdaemon, BMC event log)";
	case GA_KEV_NVRM_INIT_FAILURE:
		return "drain and reboot; inspect the GPU if it recurs";
	case GA_KEV_AMDGPU_VM_FAULT:
		if (ev->vmid.set && ev->vmid.v == 0)
			return "update the kernel (amdgpu) and linux-firmware: a fault in vmid 0 is the "
			       "driver's or firmware's own address space, not a job's";
		return "check the application: an invalid GPU memory access by the process the fault "
		       "names (like Xid 31); drain if faults repeat across jobs";
	case GA_KEV_NVRM_API_MISMATCH:
		return "reinstall the driver so user space and kernel module match, or reboot";
	case GA_KEV__COUNT:
		break;
	}
	return A_INFO;
}

bool ga_kev_vm_fault_driver(uint64_t vmid0, uint64_t other, enum ga_cause *ret_cause,
                            enum ga_action *ret_action)
{
	if (!vmid0 || other)
		return false;
	*ret_cause = GA_CAUSE_DRIVER;
	*ret_action = GA_ACT_FIX_CONFIG;
	return true;
}

enum ga_action ga_kev_ras_action(uint64_t errors, uint64_t recovered, bool reset_failed)
{
	if (reset_failed)
		return GA_ACT_REBOOT;
	if (errors && recovered >= errors)
		return GA_ACT_RESTART_WORKLOAD;
	return GA_ACT_DRAIN;
}

bool ga_kev_line_address(const char *line, size_t len, char out[16])
{
	return first_addr(line, len > GA_KLINE_MAX ? GA_KLINE_MAX : len, out);
}

int ga_xid_override_parse(const char *action, enum ga_severity *ret)
{
	static const struct {
		const char *word;
		enum ga_severity sev;
	} words[] = {
		{ "info", GA_SEV_INFO },
		{ "warning", GA_SEV_WARNING },
		{ "error", GA_SEV_ERROR },
		{ "critical", GA_SEV_CRITICAL },
	};
	if (!action)
		return -EINVAL;
	if (!strcmp(action, "ignore"))
		return 1;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(action, words[i].word)) {
			*ret = words[i].sev;
			return 0;
		}
	return -EINVAL;
}

int ga_xid_override(const struct ga_policy_class *cls, uint64_t xid, enum ga_severity *sev)
{
	if (!cls)
		return 1;
	for (size_t i = 0; i < cls->n_xid; i++) {
		if (cls->xid[i].xid != xid)
			continue;
		enum ga_severity s;
		int r = ga_xid_override_parse(cls->xid[i].action, &s);
		if (r == 1)
			return 0;
		if (r == 0)
			*sev = s;
		return 1;
	}
	return 1;
}

int ga_wall_time_parse(const char *s, int64_t *ret_s)
{
	if (!s || !*s)
		return -EINVAL;
	size_t n = strlen(s);
	const char *p = s, *end = s + n;
	uint64_t v;
	if (parse_u64(&p, end, &v) && (p == end || *p == '.')) {
		if (p < end && *p == '.') {
			const char *f = ++p;
			while (p < end && is_digit(*p))
				p++;
			if (p == f)
				return -EINVAL;
		}
		if (p != end || v > (uint64_t)INT64_MAX / 2)
			return -EINVAL;
		*ret_s = (int64_t)v;
		return 0;
	}
	/* RFC 3339: the date and time may be split by 'T', 't' or a space; an offset is required */
	char buf[64];
	if (n < 20 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (buf[10] == ' ' || buf[10] == 't')
		buf[10] = 'T';
	if (buf[n - 1] == 'z')
		buf[n - 1] = 'Z';
	const char *q = buf + 19;
	if (*q == '.')
		for (q++; is_digit(*q); q++)
			;
	if (*q != 'Z' && *q != '+' && *q != '-')
		return -EINVAL;
	int64_t wall;
	size_t k = iso_time(buf, buf + n, &wall);
	if (k != n)
		return -EINVAL;
	*ret_s = wall;
	return 0;
}

int ga_duration_parse(const char *s, double *ret_s)
{
	if (!s || !*s)
		return -EINVAL;
	const char *p = s, *end = s + strlen(s);
	double total = 0;
	while (p < end) {
		uint64_t v;
		if (!parse_u64(&p, end, &v) || v > 100000000)
			return -EINVAL;
		double unit = 1;
		if (p < end) {
			switch (*p) {
			case 's':
				unit = 1;
				break;
			case 'm':
				unit = 60;
				break;
			case 'h':
				unit = 3600;
				break;
			case 'd':
				unit = 86400;
				break;
			case 'w':
				unit = 7 * 86400;
				break;
			default:
				return -EINVAL;
			}
			p++;
		} else if (p != end || total > 0) {
			return -EINVAL; /* "1h30" is ambiguous */
		}
		total += (double)v * unit;
	}
	if (!(total > 0))
		return -EINVAL;
	*ret_s = total;
	return 0;
}
