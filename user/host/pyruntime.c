// SPDX-License-Identifier: MIT
/*
 * A target's CPython found and checked at a window's start: which file
 * holds _PyRuntime, its version, where its thread states are and how
 * glibc keeps CPython's pthread key.  Everything read is the task's; an
 * offset is taken only once the task's own thread states confirm it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "proc/procfs.h"
#include "proc/procmem.h"
#include "pyruntime.h"

/* Thread states looked at to confirm the key. */
#define MAX_THREADS 256
/* Bytes of _PyRuntime searched for the key when the table's is wrong. */
#define KEY_SEARCH 0x1000
/* Places there tried as the key, each two reads of every thread. */
#define KEY_TRIES 64
/* Most keys a glibc process can have (PTHREAD_KEYS_MAX). */
#define KEYS_MAX 1024
/* Symbol bytes read from the interpreter and libc, all told. */
#define SYM_BUDGET (64ull << 20)

enum { SYM_RUNTIME, SYM_VERSION, SYM_CODE_TYPE, NPYSYMS };
static const char *const py_syms[NPYSYMS] = {
	"_PyRuntime", "Py_Version", "PyCode_Type",
};
enum { SYM_SIZEOF_PTHREAD, SYM_SPECIFIC, SYM_KEY_DATA, SYM_SIZEOF_KEY_DATA,
       NLIBCSYMS };
/* What glibc describes of itself for libthread_db. */
static const char *const libc_syms[NLIBCSYMS] = {
	"_thread_db_sizeof_pthread", "_thread_db_pthread_specific",
	"_thread_db_pthread_key_data_data", "_thread_db_sizeof_pthread_key_data",
};

struct find {
	int pid;
	struct stat exe;
	uint64_t budget;
	uint64_t py[NPYSYMS];		/* addresses in the task */
	uint64_t libc[NLIBCSYMS];
	char py_path[PATH_MAX];
	bool have_py, have_libc;
};

static int read_mem(int pid, uint64_t addr, void *out, uint32_t len)
{
	struct procmem_range r = { .addr = addr, .len = len };
	uint8_t ok = 0;
	int err = procmem_read(pid, &r, 1, out, len, &ok);

	return err ?: ok ? 0 : -EFAULT;
}

static int read_u64(int pid, uint64_t addr, uint64_t *v)
{
	return read_mem(pid, addr, v, sizeof(*v));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The file's symbols at their addresses in the task; how many found. */
static int lookup(struct find *f, const struct procfs_map *m, const char *file,
		  const char *const *names, size_t n, uint64_t *addrs)
{
	uint64_t delta, bias;
	char why[160];
	size_t i;
	int fd, found;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	found = elfsym_find_data(fd, names, n, addrs, &delta, &f->budget, why,
				 sizeof(why));
	close(fd);
	if (found <= 0)
		return 0;
	bias = m->start - m->pgoff - delta;
	for (i = 0; i < n; i++)
		if (addrs[i])
			addrs[i] += bias;
	return found;
}

static bool same_file(const char *file, const struct stat *want)
{
	struct stat st;

	return want->st_ino && !stat(file, &st) && st.st_dev == want->st_dev &&
	       st.st_ino == want->st_ino;
}

static int visit_map(const struct procfs_map *m, void *ctx)
{
	struct find *f = ctx;
	const char *name = base_name(m->path), *file = m->file;
	char full[PATH_MAX];

	if (access(file, F_OK)) {
		if (snprintf(full, sizeof(full), "/proc/%d/root%s", f->pid,
			     m->path) >= (int)sizeof(full))
			return 0;
		file = full;
	}
	if (!f->have_py && (!strncmp(name, "libpython3.", 11) ||
			    same_file(file, &f->exe)) &&
	    lookup(f, m, file, py_syms, NPYSYMS, f->py) && f->py[SYM_RUNTIME]) {
		f->have_py = true;
		snprintf(f->py_path, sizeof(f->py_path), "%s", m->path);
	}
	if (!f->have_libc && (!strncmp(name, "libc.so", 7) ||
			      !strncmp(name, "libc-2.", 7) ||
			      !strncmp(name, "libpthread", 10)) &&
	    lookup(f, m, file, libc_syms, NLIBCSYMS, f->libc) == NLIBCSYMS)
		f->have_libc = true;
	return 0;
}

/* 3.minor from Py_Version (3.11 on), else from the file's name. */
static int python_minor(const struct find *f, unsigned int *minor)
{
	const char *s = strstr(base_name(f->py_path), "python3.");
	uint32_t hex;
	char *end;
	unsigned long v;

	if (f->py[SYM_VERSION] &&
	    !read_mem(f->pid, f->py[SYM_VERSION], &hex, sizeof(hex)) &&
	    hex >> 24 == 3) {
		*minor = (hex >> 16) & 0xff;
		return 0;
	}
	if (!s)
		return -ENOENT;
	v = strtoul(s + 8, &end, 10);
	if (end == s + 8 || v > 99)
		return -ENOENT;
	*minor = (unsigned int)v;
	return 0;
}

/* 3.13's _Py_DebugOffsets: the interpreter's own word on its layout. */
enum {
	DBG_VERSION, DBG_FREE_THREADED,
	DBG_RT_SIZE, DBG_RT_FINALIZING, DBG_RT_INTERP_HEAD,
	DBG_IS_SIZE, DBG_IS_ID, DBG_IS_NEXT, DBG_IS_THREADS_HEAD,
	DBG_TS_SIZE = 18, DBG_TS_PREV, DBG_TS_NEXT, DBG_TS_INTERP,
	DBG_TS_FRAME, DBG_TS_THREAD_ID,
	DBG_FR_SIZE = 27, DBG_FR_PREVIOUS, DBG_FR_EXECUTABLE, DBG_FR_INSTR,
	DBG_FR_LOCALS, DBG_FR_OWNER,
	DBG_CO_SIZE, DBG_CO_FILENAME, DBG_CO_NAME, DBG_CO_QUALNAME,
	DBG_CO_LINETABLE, DBG_CO_FIRSTLINENO, DBG_CO_ARGCOUNT,
	DBG_CO_NAMES, DBG_CO_KINDS, DBG_CO_CODE,
	DBG_WORDS,
};

static int apply_debug_offsets(const struct find *f, struct pyoffsets *o,
			       char *why, size_t len)
{
	struct { char cookie[8]; uint64_t w[DBG_WORDS]; } d;
	const uint64_t *w = d.w;
	size_t i;

	if (read_mem(f->pid, f->py[SYM_RUNTIME], &d, sizeof(d)) ||
	    memcmp(d.cookie, "xdebugpy", 8))
		return 0;	/* none: the table stands */
	if (w[DBG_FREE_THREADED]) {
		snprintf(why, len, "a free-threaded CPython, whose objects msprof cannot read");
		return -ENOTSUP;
	}
	for (i = DBG_RT_SIZE; i < DBG_WORDS; i++)
		if (w[i] > 0xffff && i != DBG_RT_SIZE && i != DBG_IS_SIZE)
			goto bad;
	o->rt_interp_head = (uint32_t)w[DBG_RT_INTERP_HEAD];
	o->interp_threads = (uint32_t)w[DBG_IS_THREADS_HEAD];
	o->ts_next = (uint32_t)w[DBG_TS_NEXT];
	o->ts_thread_id = (uint32_t)w[DBG_TS_THREAD_ID];
	o->f.ts_frame = (uint16_t)w[DBG_TS_FRAME];
	o->f.fr_back = (uint16_t)w[DBG_FR_PREVIOUS];
	o->f.fr_code = (uint16_t)w[DBG_FR_EXECUTABLE];
	o->f.fr_instr = (uint16_t)w[DBG_FR_INSTR];
	o->f.fr_owner = (uint16_t)w[DBG_FR_OWNER];
	o->co_filename = (uint16_t)w[DBG_CO_FILENAME];
	o->co_name = (uint16_t)w[DBG_CO_NAME];
	o->co_qualname = (uint16_t)w[DBG_CO_QUALNAME];
	o->co_linetable = (uint16_t)w[DBG_CO_LINETABLE];
	o->co_firstlineno = (uint16_t)w[DBG_CO_FIRSTLINENO];
	o->co_code = (uint16_t)w[DBG_CO_CODE];
	if (o->f.fr_back % 8 || o->f.fr_code % 8 || o->f.fr_instr % 8 ||
	    o->f.fr_back + 8 > o->f.fr_read || o->f.fr_code + 8 > o->f.fr_read ||
	    o->f.fr_instr + 8 > o->f.fr_read || o->f.fr_owner >= o->f.fr_read ||
	    w[DBG_CO_SIZE] > 0x200 || o->co_code > w[DBG_CO_SIZE])
		goto bad;
	o->co_size = (uint16_t)w[DBG_CO_SIZE];
	return 0;
bad:
	snprintf(why, len, "its _Py_DebugOffsets describe a layout msprof cannot walk");
	return -ENOTSUP;
}

/* The main interpreter's thread states and their threads' struct pthread. */
struct threads {
	uint64_t ts[MAX_THREADS];
	uint64_t self[MAX_THREADS];	/* thread_id: pthread_self() */
	unsigned int n;
};

static int read_threads(const struct find *f, const struct pyoffsets *o,
			struct threads *t)
{
	uint64_t interp, ts;

	t->n = 0;
	if (read_u64(f->pid, f->py[SYM_RUNTIME] + o->rt_interp_head, &interp) ||
	    !interp || read_u64(f->pid, interp + o->interp_threads, &ts))
		return -EFAULT;
	while (ts && t->n < MAX_THREADS) {
		t->ts[t->n] = ts;
		if (read_u64(f->pid, ts + o->ts_thread_id, &t->self[t->n]) ||
		    read_u64(f->pid, ts + o->ts_next, &ts))
			return -EFAULT;
		t->n++;
	}
	return t->n ? 0 : -ESRCH;
}

/*
 * Where every thread's block of key slots lies from its struct pthread, if
 * at one offset for all (glibc's first block is inside struct pthread, so
 * the walk need not read its pointer); 0 otherwise.
 */
static uint16_t block_offset(const struct threads *t, const uint64_t *block,
			     const uint8_t *ok)
{
	uint64_t off = 0;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (!ok[i] || block[i] <= t->self[i] ||
		    block[i] - t->self[i] > UINT16_MAX ||
		    (off && block[i] - t->self[i] != off))
			return 0;
		off = block[i] - t->self[i];
	}
	return (uint16_t)off;
}

/*
 * Whether some thread finds its own thread state in its slot of key: two
 * batched reads, the slots' blocks and then their values.  Sets the
 * blocks' offset in c when it is the same for every thread.
 */
static bool key_confirmed(const struct find *f, struct msprof_py_conf *c,
			  const struct threads *t, uint32_t key)
{
	static struct procmem_range r[MAX_THREADS];
	static uint64_t v[MAX_THREADS];
	static uint8_t ok[MAX_THREADS];
	unsigned int i;

	for (i = 0; i < t->n; i++)
		r[i] = (struct procmem_range){
			.addr = t->self[i] + c->specific_off + 8 * (key / 32),
			.len = 8 };
	if (procmem_read(f->pid, r, t->n, v, sizeof(v), ok))
		return false;
	c->block_off = block_offset(t, v, ok);
	for (i = 0; i < t->n; i++)
		r[i].addr = ok[i] && v[i] ?
			    v[i] + (uint64_t)c->slot_size * (key % 32) + c->slot_data :
			    0;
	if (procmem_read(f->pid, r, t->n, v, sizeof(v), ok))
		return false;
	for (i = 0; i < t->n; i++)
		if (ok[i] && r[i].addr && v[i] == t->ts[i])
			return true;
	return false;
}

/*
 * CPython's pthread key: its Py_tss_t {int initialized; key} at the
 * table's offset, else the first of at most KEY_TRIES others near the
 * start of _PyRuntime that the threads confirm (a build whose state
 * before it is laid out otherwise).
 */
static int find_key(const struct find *f, struct pyruntime *py)
{
#if defined(__aarch64__)
	uint32_t at = py->off.rt_tss_arm64 / 4;
#else
	uint32_t at = py->off.rt_tss_x86_64 / 4;
#endif
	static uint32_t w[KEY_SEARCH / 4];
	static struct threads t;
	uint32_t i, tries = 0;

	if (read_mem(f->pid, f->py[SYM_RUNTIME], w, sizeof(w)) ||
	    read_threads(f, &py->off, &t))
		return -EFAULT;
	if (at + 1 < KEY_SEARCH / 4 && w[at] == 1 && w[at + 1] < KEYS_MAX &&
	    key_confirmed(f, &py->conf, &t, w[at + 1])) {
		py->conf.key = w[at + 1];
		return 0;
	}
	for (i = 0; i + 1 < KEY_SEARCH / 4 && tries < KEY_TRIES; i++) {
		if (w[i] != 1 || w[i + 1] >= KEYS_MAX || i == at)
			continue;
		tries++;
		if (key_confirmed(f, &py->conf, &t, w[i + 1])) {
			py->conf.key = w[i + 1];
			return 0;
		}
	}
	return -ESRCH;
}

/* glibc's layout of key slots, from its libthread_db descriptors. */
static int libc_layout(const struct find *f, struct msprof_py_conf *c)
{
	uint32_t sizeof_pthread, specific[3], data[3], slot;

	if (read_mem(f->pid, f->libc[SYM_SIZEOF_PTHREAD], &sizeof_pthread, 4) ||
	    read_mem(f->pid, f->libc[SYM_SPECIFIC], specific, sizeof(specific)) ||
	    read_mem(f->pid, f->libc[SYM_KEY_DATA], data, sizeof(data)) ||
	    read_mem(f->pid, f->libc[SYM_SIZEOF_KEY_DATA], &slot, 4))
		return -EFAULT;
	if (sizeof_pthread > 0x10000 || specific[2] >= sizeof_pthread ||
	    slot > 64 || data[2] + 8 > slot)
		return -EINVAL;
#if defined(__aarch64__)
	/* There struct pthread lies just below the thread pointer. */
	c->tp_self_sub = sizeof_pthread;
#else
	c->tp_self_sub = 0;	/* x86_64: the thread pointer is struct pthread */
#endif
	c->specific_off = specific[2];
	c->slot_size = slot;
	c->slot_data = data[2];
	return 0;
}

static void frame_conf(struct pyruntime *py, unsigned int depth)
{
	py->conf.f = py->off.f;
	py->depth = depth;
	/* Shim frames are taken too, for msprof to drop. */
	if (py->off.owner_shim != 0xff)
		depth += MSPROF_PY_SHIM_SLACK;
	py->conf.depth = (uint16_t)(depth < MSPROF_PY_MAX_DEPTH ? depth :
				    MSPROF_PY_MAX_DEPTH);
	/* Big enough for the frames asked for, no bigger: a read's cost grows. */
	py->conf.window = 0;
	if (py->off.f.adjacent)
		py->conf.window = (uint16_t)(py->conf.depth * MSPROF_PY_WINDOW_PER_FRAME < MSPROF_PY_WINDOW ?
					     py->conf.depth * MSPROF_PY_WINDOW_PER_FRAME :
					     MSPROF_PY_WINDOW);
}

int pyruntime_find(int host_pid, unsigned int depth, struct pyruntime *py,
		   char *why, size_t len)
{
	static struct find f;
	const struct pyoffsets *o;
	unsigned int minor;
	char exe[64];
	int err;

	memset(&f, 0, sizeof(f));
	memset(py, 0, sizeof(*py));
	f.pid = py->pid = host_pid;
	f.budget = SYM_BUDGET;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", host_pid);
	if (stat(exe, &f.exe))
		f.exe.st_ino = 0;
	err = procfs_exec_maps(host_pid, visit_map, &f);
	if (err)
		return err;
	if (!f.have_py)
		return -ENOENT;
	snprintf(py->path, sizeof(py->path), "%s", f.py_path);
	if (python_minor(&f, &minor)) {
		snprintf(why, len, "cannot tell the CPython version of %s", f.py_path);
		return -ENOTSUP;
	}
	o = pyoffsets_of(minor);
	if (!o) {
		snprintf(why, len, "CPython 3.%u has no layout table (3.%u to 3.%u have)",
			 minor, PYOFFSETS_MIN_MINOR, PYOFFSETS_MAX_MINOR);
		return -ENOTSUP;
	}
	py->off = *o;
	py->code_type = f.py[SYM_CODE_TYPE];
	err = apply_debug_offsets(&f, &py->off, why, len);
	if (err)
		return err;
	if (!f.have_libc || libc_layout(&f, &py->conf)) {
		snprintf(why, len, "CPython 3.%u: no glibc thread descriptors to find its thread states by",
			 minor);
		return -ENOTSUP;
	}
	if (!py->code_type || find_key(&f, py)) {
		snprintf(why, len, "CPython 3.%u: its thread states did not confirm the layout msprof has for it",
			 minor);
		return -ENOTSUP;
	}
	frame_conf(py, depth);
	return 0;
}
