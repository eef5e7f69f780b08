// SPDX-License-Identifier: MIT
/* host_syscall.data's and host_pthreadcall.data's lines, both ways. */
#include <stdlib.h>
#include <string.h>

#include "osrt_text.h"

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static char *put_u64(char *p, uint64_t v)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, -(uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

static char *put_hex(char *p, uint64_t v)
{
	static const char digit[] = "0123456789abcdef";
	char digits[16];
	size_t n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		digits[n++] = digit[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* units / 10^decimals, with every one of its decimals. */
static char *put_fixed(char *p, uint64_t units, unsigned int decimals)
{
	uint64_t scale = 1;
	unsigned int i;

	for (i = 0; i < decimals; i++)
		scale *= 10;
	p = put_u64(p, units / scale);
	*p++ = '.';
	for (i = decimals; i-- > 0;) {
		p[i] = (char)('0' + units % 10);
		units /= 10;
	}
	return p + decimals;
}

/* ns in whole µs, as perf and ltrace print their times. */
static uint64_t to_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

/* A line's name fields are cleaned by the caller; these are bounded here. */
static char *put_name(char *p, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	memcpy(p, s, n);
	return p + n;
}

size_t osrt_perf_line(char *buf, const struct osrt_line_call *c)
{
	char *p = buf;
	unsigned int i;

	p = put_fixed(p, to_us(c->raw_ns), 3);
	p = put_str(p, " (");
	p = put_fixed(p, to_us(c->dur_ns), 3);
	p = put_str(p, " ms): ");
	p = put_name(p, c->who, OSRT_COMM_MAX);
	*p++ = '/';
	p = put_u64(p, c->tid);
	*p++ = ' ';
	p = put_name(p, c->name, 64);
	*p++ = '(';
	/* The analysis wants an argument's name after '(': one for none. */
	for (i = 0; i < c->nargs && i < 6; i++) {
		p = put_str(p, i ? ", a" : "a");
		*p++ = (char)('0' + i);
		p = put_str(p, ": ");
		p = put_hex(p, c->args[i]);
	}
	if (!c->nargs)
		p = put_str(p, "a0: 0");
	p = put_str(p, ") = ");
	p = put_i64(p, c->ret);
	*p++ = '\n';
	return (size_t)(p - buf);
}

size_t osrt_ltrace_line(char *buf, const struct osrt_line_call *c)
{
	char *p = put_str(buf, "[pid ");
	unsigned int i;

	p = put_u64(p, c->tid);
	p = put_str(p, "] ");
	p = put_fixed(p, to_us(c->raw_ns), 6);
	*p++ = ' ';
	p = put_name(p, c->who, OSRT_COMM_MAX);
	p = put_str(p, "->");
	p = put_name(p, c->name, 64);
	*p++ = '(';
	for (i = 0; i < c->nargs && i < 6; i++) {
		if (i)
			p = put_str(p, ", ");
		p = put_hex(p, c->args[i]);
	}
	p = put_str(p, ") = ");
	p = put_i64(p, (int32_t)c->ret);	/* the functions return an int */
	p = put_str(p, " <");
	p = put_fixed(p, to_us(c->dur_ns), 6);
	p = put_str(p, ">\n");
	return (size_t)(p - buf);
}

/* The sentinels' times keep every ns: the offset taken from them is 0. */
size_t osrt_perf_sentinel(char *buf, uint64_t raw_ns, const char *who, uint32_t pid)
{
	char *p = put_fixed(buf, raw_ns, 6);

	p = put_str(p, " (0.000 ms): ");
	p = put_name(p, who, OSRT_COMM_MAX);
	*p++ = '/';
	p = put_u64(p, pid);
	p = put_str(p, " getpid(dummy: 0) = ");
	p = put_u64(p, pid);
	*p++ = '\n';
	return (size_t)(p - buf);
}

size_t osrt_ltrace_sentinel(char *buf, uint64_t raw_ns, const char *who, uint32_t pid)
{
	char *p = put_str(buf, "[pid ");

	p = put_u64(p, pid);
	p = put_str(p, "] ");
	p = put_fixed(p, raw_ns, 9);
	*p++ = ' ';
	p = put_name(p, who, OSRT_COMM_MAX);
	p = put_str(p, "->pthread_once(0x1, 0x2) = 0 <0.000000>\n");
	return (size_t)(p - buf);
}

void osrt_clean_name(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < OSRT_COMM_MAX - 1 && src[i]; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || strchr("_.-+", c) ? c : '_';
	}
	if (!i)
		dst[i++] = '?';
	dst[i] = '\0';
}

/* msprof's names (its analysis's API_FUNC_NAME_FILTER), blank-separated. */
static const char msprof_names[] =
	"accept accept4 acct alarm arch_prctl bind bpf brk chroot "
	"clock_nanosleep connect copy_file_range creat creat64 dup dup2 dup3 "
	"epoll_ctl epoll_pwait epoll_wait fallocate fallocate64 fcntl "
	"fdatasync flock fork fsync ftruncate futex ioctl ioperm iopl kill "
	"killpg listen membarrier mlock mlock2 mlockall mmap mmap64 mount "
	"move_pages mprotect mq_notify mq_open mq_receive mq_send "
	"mq_timedreceive mq_timedsend mremap msgctl msgget msgrcv msgsnd msync "
	"munmap nanosleep nfsservctl open open64 openat openat64 pause pipe "
	"pipe2 pivot_root poll ppoll prctl pread pread64 preadv preadv2 "
	"preadv64 process_vm_readv process_vm_writev pselect6 ptrace pwrite "
	"pwrite64 pwritev pwritev2 pwritev64 read readv reboot recv recvfrom "
	"recvmmsg recvmsg rt_sigaction rt_sigqueueinfo rt_sigsuspend "
	"rt_sigtimedwait sched_yield seccomp select semctl semget semop "
	"semtimedop send sendfile sendfile64 sendmmsg sendmsg sendto shmat "
	"shmctl shmdt shmget shutdown sigaction sigsuspend sigtimedwait socket "
	"socketpair splice swapoff swapon sync sync_file_range syncfs tee "
	"tgkill tgsigqueueinfo tkill truncate umount2 unshare uselib vfork "
	"vhangup vmsplice wait wait3 wait4 waitid waitpid write writev _sysctl";

bool osrt_msprof_keeps(const char *name, size_t len)
{
	const char *w = msprof_names, *at;
	size_t n;

	for (; *w; w += n + (w[n] == ' ')) {
		n = strcspn(w, " ");
		for (at = name; n <= len && at + n <= name + len; at++)
			if (!memcmp(at, w, n))
				return true;
	}
	return false;
}

/*
 * Reading as the analysis reads: Python's str.strip() and str.split()
 * blanks (which its re's \s matches too), and its r'\d+\.\d+'.
 */
struct span {
	const char *s;
	size_t n;
};

static bool py_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static struct span strip_chars(struct span a, bool (*is)(char))
{
	while (a.n && is(a.s[0]))
		a.s++, a.n--;
	while (a.n && is(a.s[a.n - 1]))
		a.n--;
	return a;
}

static struct span strip(struct span a)
{
	return strip_chars(a, py_blank);
}

static bool is_lt(char c)
{
	return c == '<';
}

static bool is_gt(char c)
{
	return c == '>';
}

static bool is_bracket(char c)
{
	return c == ']';
}

/* The next blank-separated token at or after *at; false when none is left. */
static bool next_token(struct span a, size_t *at, struct span *tok)
{
	size_t i = *at;

	while (i < a.n && py_blank(a.s[i]))
		i++;
	if (i == a.n)
		return false;
	tok->s = a.s + i;
	while (i < a.n && !py_blank(a.s[i]))
		i++;
	tok->n = (size_t)(a.s + i - tok->s);
	*at = i;
	return true;
}

/* a up to the first c (all of a without one). */
static struct span before(struct span a, char c)
{
	const char *at = memchr(a.s, c, a.n);

	if (at)
		a.n = (size_t)(at - a.s);
	return a;
}

static size_t digits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* r'\d+\.\d+' matched at a's start: its length, 0 if it does not match. */
static size_t match_time(struct span a)
{
	size_t i = digits(a.s, a.n), j;

	if (!i || i == a.n || a.s[i] != '.')
		return 0;
	j = digits(a.s + i + 1, a.n - i - 1);
	return j ? i + 1 + j : 0;
}

/* Python's float() of text that is all number. */
static double number(const char *s, size_t n)
{
	char *copy = strndup(s, n);
	double v;

	if (!copy)
		return 0;
	v = strtod(copy, NULL);
	free(copy);
	return v;
}

/* Python's float() would take the token (hex floats it would not). */
static bool is_number(struct span a)
{
	char *copy = strndup(a.s, a.n), *end;
	bool ok;

	if (!copy)
		return false;
	strtod(copy, &end);
	ok = a.n && !*end && !memchr(a.s, 'x', a.n) && !memchr(a.s, 'X', a.n);
	free(copy);
	return ok;
}

/* The time part, "<start> (<dur> ms)": split once at a blank before '('. */
static bool perf_times(struct span t, double *start, double *dur)
{
	struct span a, b;
	size_t i, splits = 0, at = 0, na, nb;

	t = strip(t);
	for (i = 0; i + 1 < t.n; i++)
		if (py_blank(t.s[i]) && t.s[i + 1] == '(') {
			splits++;
			at = i;
			i++;
		}
	if (splits != 1)
		return false;
	a = strip((struct span){ t.s, at });
	b = strip((struct span){ t.s + at + 2, t.n - at - 2 });
	na = match_time(a);
	nb = match_time(b);
	if (!na || !nb)
		return false;
	*start = number(a.s, na);
	*dur = number(b.s, nb);
	return true;
}

void osrt_parse_perf(const char *line, size_t len, double now_s,
		     struct osrt_parsed *out)
{
	struct span l = strip((struct span){ line, len }), part, tok[3];
	const char *colon;
	size_t at = 0, n = 0;
	double start, dur;

	memset(out, 0, sizeof(*out));
	colon = memchr(l.s, ':', l.n);
	if (!colon || !perf_times((struct span){ l.s, (size_t)(colon - l.s) },
				  &start, &dur))
		return;
	out->timed = true;
	part.s = colon + 1;
	part.n = (size_t)(l.s + l.n - part.s);
	part = before(part, ':');
	while (n < 3 && next_token(part, &at, &tok[n]))
		n++;
	if (memchr(part.s, '/', before(part, '(').n)) {
		const char *slash = n == 2 ? memchr(tok[0].s, '/', tok[0].n) : NULL;

		/* No name, or a '/' past the thread (the analysis fails there). */
		if (!slash)
			return;
		out->tid = slash + 1;
		out->tid_len = before((struct span){ out->tid,
			(size_t)(tok[0].s + tok[0].n - out->tid) }, '/').n;
		tok[0] = before(tok[1], '(');
	} else if (n) {
		tok[0] = before(tok[0], '(');
	} else {
		tok[0] = (struct span){ "NA", 2 };
	}
	out->name = tok[0].s;
	out->name_len = tok[0].n;
	if (!osrt_msprof_keeps(out->name, out->name_len) ||
	    (start + dur) / 1000.0 > now_s)
		return;
	out->kept = true;
	out->dur_ns = dur * 1000.0 * 1000;
}

void osrt_parse_ltrace(const char *line, size_t len, struct osrt_parsed *out)
{
	struct span l = { line, len }, tok[5], last = { NULL, 0 }, t, d;
	size_t at = 0, n = 0, nd;
	const char *arrow;

	memset(out, 0, sizeof(*out));
	while (next_token(l, &at, &t)) {
		if (n < 5)
			tok[n] = t;
		n++;
		last = t;
	}
	if (n < 5 || last.s[last.n - 1] != '>')
		return;
	d = strip_chars(strip_chars(last, is_lt), is_gt);
	nd = match_time(d);
	if (!nd || !is_number(tok[2]))
		return;
	out->timed = true;
	t = strip_chars(tok[1], is_bracket);
	out->tid = t.s;
	out->tid_len = t.n;
	arrow = memmem(tok[3].s, tok[3].n, "->", 2);
	if (arrow) {
		t.s = arrow + 2;
		t.n = (size_t)(tok[3].s + tok[3].n - t.s);
		arrow = memmem(t.s, t.n, "->", 2);
		if (arrow)
			t.n = (size_t)(arrow - t.s);
		t = before(t, '(');
	} else {
		t = tok[4];
	}
	out->name = t.s;
	out->name_len = t.n;
	if (t.n == 12 && !memcmp(t.s, "pthread_once", 12))
		return;
	out->kept = true;
	out->dur_ns = number(d.s, nd) * 1e9;
}
