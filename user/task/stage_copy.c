// SPDX-License-Identifier: MIT
/*
 * Taking a task's staged device data into the window's PROF_ directory:
 * the files a runtime writes (docs/output.md), within the window's caps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/proflayout.h"
#include "common/safe_open.h"
#include "common/testpoint.h"
#include "stage_copy.h"

/*
 * What is taken from the stage: the one PROF_ directory a runtime (or our
 * agent, devdata.c) made there in this window, and in it only the files a
 * runtime writes (docs/output.md); everything else is counted.
 */
enum staged { STAGED_STRAY, STAGED_FILE, STAGED_DIR };

/* Where in the stage an entry lies: what may be taken there. */
enum level {
	AT_STAGE,		/* the stage itself: the PROF_ directory */
	AT_RUN,			/* PROF_...: device_<N>/, host/, agent_stats */
	AT_DEVICE,		/* device_<N>/: control files, data/ */
	AT_DEVICE_DATA,		/* device_<N>/data/: channel slices */
	AT_HOST,		/* host/: data/ only (msprof makes the rest) */
	AT_HOST_DATA,		/* host/data/: API and dictionary slices */
};

/*
 * Far more than a target's files in a window, and than a runtime's file;
 * the tests lower them (testpoint_limit()).
 */
#define STAGE_MAX_FILES 65536
#define STAGE_MAX_FILE_BYTES (2ull << 30)
#define DEVICE_DIGITS 4

/* s[0..n) is not empty and all of set (s may go on past n). */
static bool all_of(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return n;
}

static bool digits(const char *s, size_t n)
{
	return all_of(s, n, "0123456789");
}

static bool has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && !memcmp(s, prefix, p);
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* Length without a trailing ".slice_<digits>", or 0 if there is none. */
static size_t before_slice(const char *s, size_t n)
{
	size_t d = n;

	while (d && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d == n || d < 8 || memcmp(s + d - 7, ".slice_", 7))
		return 0;
	return d - 7;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

/* "<channel>.data.<dev>.slice_<M>": a device's raw channel data. */
static bool device_slice(const char *s, size_t n, const char *dev)
{
	size_t b = before_slice(s, n), d = strlen(dev);

	if (b < 6 + d + 1 || memcmp(s + b - d, dev, d) ||
	    memcmp(s + b - d - 6, ".data.", 6))
		return false;
	return all_of(s, b - d - 6, NAME_CHARS);
}

/* "{unaging|aging}.<kind>.<tag>.slice_<M>": the host's raw API data. */
static bool host_slice(const char *s, size_t n)
{
	size_t b = before_slice(s, n), p;

	if (has_prefix(s, b, "unaging."))
		p = 8;
	else if (has_prefix(s, b, "aging."))
		p = 6;
	else
		return false;
	return all_of(s + p, b - p, NAME_CHARS ".");
}

/* "<base>.<dev>", or sample.json: a device's control files. */
static bool device_control(const char *s, size_t n, const char *dev)
{
	static const char *const bases[] = PROFDIR_DEVICE_META;
	size_t i, b;

	if (n == strlen(PROFDIR_SAMPLE) && !memcmp(s, PROFDIR_SAMPLE, n))
		return true;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		b = strlen(bases[i]);
		if (n == b + strlen(dev) && !memcmp(s, bases[i], b) &&
		    !memcmp(s + b, dev, n - b))
			return true;
	}
	return false;
}

struct take {
	struct stage_copy *c;
	const struct stage *stage;
	int to;		/* the matching directory in the PROF_ directory */
	enum level level;
	const char *run;	/* the PROF_ directory taken, at AT_STAGE */
	const char *dev;	/* device_<dev>/ being taken, in AT_DEVICE* */
	struct stage_device *device;	/* its entry in c->devices */
	unsigned int *files;	/* the target's files taken so far */
	struct fsutil_budget *budget;	/* the window's, all targets' */
};

static enum staged staged_kind(const struct take *tk, const char *name)
{
	size_t n = strlen(name), k = n, p = strlen(PROFDIR_DEVICE_PREFIX);
	size_t a = strlen(PROFDIR_AGENT_STATS_PREFIX);
	size_t z = strlen(PROFDIR_AGENT_STATS_SUFFIX);

	if (has_suffix(name, n, PROFDIR_DONE))
		k -= strlen(PROFDIR_DONE);
	switch (tk->level) {
	case AT_STAGE:
		return tk->run && !strcmp(name, tk->run) ? STAGED_DIR :
		       STAGED_STRAY;
	case AT_RUN:
		if (has_prefix(name, n, PROFDIR_DEVICE_PREFIX) &&
		    digits(name + p, n - p) && n - p <= DEVICE_DIGITS &&
		    (name[p] != '0' || n == p + 1))
			return STAGED_DIR;
		if (!strcmp(name, PROFDIR_HOST))
			return STAGED_DIR;
		if (has_prefix(name, n, PROFDIR_AGENT_STATS_PREFIX) &&
		    has_suffix(name, n, PROFDIR_AGENT_STATS_SUFFIX) &&
		    all_of(name + a, n - a - z, "abcdefghijklmnopqrstuvwxyz0123456789_"))
			return STAGED_FILE;
		return STAGED_STRAY;
	case AT_DEVICE:
		if (!strcmp(name, PROFDIR_DATA))
			return STAGED_DIR;
		return device_control(name, k, tk->dev) ? STAGED_FILE :
		       STAGED_STRAY;
	case AT_DEVICE_DATA:
		return !strcmp(name, PROFDIR_DEVICE_TIME) ||
		       device_slice(name, k, tk->dev) ? STAGED_FILE :
		       STAGED_STRAY;
	case AT_HOST:
		return strcmp(name, PROFDIR_DATA) ? STAGED_STRAY : STAGED_DIR;
	default:
		return host_slice(name, k) ? STAGED_FILE : STAGED_STRAY;
	}
}

/*
 * Opens an entry of the stage only if it is what the task's user made:
 * never a link, a mount point (a task with a user namespace of its own can
 * mount anything it can reach there), a FIFO (O_NONBLOCK: no hang), a hard
 * link to someone else's file, a sparse file, or another user's; never a
 * tty to become msprof's controlling terminal (O_NOCTTY).
 */
static int open_staged(const struct stage *s, int dir, const char *name,
		       enum staged kind, int *fd, struct stat *st)
{
	int flags = kind == STAGED_DIR ? STAGE_DIR_FLAGS :
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	bool ok;
	int err;

	*fd = safe_openat_beneath(dir, name, flags, 0);
	if (*fd < 0)
		return *fd;
	if (fstat(*fd, st)) {
		err = -errno;
		close(*fd);
		return err;
	}
	/*
	 * A file with holes is not the agent's, which writes in order: its
	 * size cost the user nothing.  (Holes punched after this check stay
	 * holes in the copy, fsutil_copy_data().)  An empty file
	 * has no data for SEEK_HOLE to find (ENXIO) and is fine.
	 */
	ok = st->st_uid == s->uid &&
	     (kind == STAGED_DIR ? S_ISDIR(st->st_mode) :
	      S_ISREG(st->st_mode) && st->st_nlink == 1 &&
	      (st->st_size == 0 || lseek(*fd, 0, SEEK_HOLE) >= st->st_size));
	if (!ok) {
		close(*fd);
		return -EPERM;
	}
	return 0;
}

static int take_at(int from, const char *name, void *ctx);

/* What a directory of level holds. */
static enum level level_below(enum level level, const char *name)
{
	switch (level) {
	case AT_STAGE:
		return AT_RUN;
	case AT_RUN:
		return strcmp(name, PROFDIR_HOST) ? AT_DEVICE : AT_HOST;
	case AT_DEVICE:
		return AT_DEVICE_DATA;
	default:
		return AT_HOST_DATA;
	}
}

/*
 * Lists device_<N>/ as taken (*fresh: a new last entry), or finds it
 * listed by an earlier copy in this window; NULL when the list is full.
 */
static struct stage_device *device_add(struct stage_copy *c, const char *dev,
				       bool *fresh)
{
	unsigned int i, id = (unsigned int)atoi(dev);
	struct stage_device *d;

	*fresh = false;
	for (i = 0; i < c->ndevices; i++)
		if (c->devices[i].id == id)
			return &c->devices[i];
	if (c->ndevices == STAGE_COPY_MAX_DEVICES)
		return NULL;
	*fresh = true;
	d = &c->devices[c->ndevices++];
	*d = (struct stage_device){ .id = id };
	return d;
}

/* An entry a runtime writes, left out at cap (STAGE_LEFT_*). */
static void left_out(struct stage_copy *c, unsigned int cap)
{
	c->left_out++;
	c->left_why |= cap;
}

/*
 * A directory of the stage into the matching one of root's in the PROF_
 * dir; the runtime's PROF_ directory itself into the PROF_ dir.
 */
static int take_dir(struct take *tk, int from, const char *name)
{
	struct take sub = *tk;
	bool run = tk->level == AT_STAGE, listed = false;
	struct stat st;
	int in, err;

	sub.level = level_below(tk->level, name);
	if (open_staged(tk->stage, from, name, STAGED_DIR, &in, &st)) {
		tk->c->ignored++;
		return 0;
	}
	/* Listed while taken (the last entry if new), dropped if nothing came. */
	if (sub.level == AT_DEVICE) {
		sub.dev = name + strlen(PROFDIR_DEVICE_PREFIX);
		sub.device = device_add(tk->c, sub.dev, &listed);
		if (!sub.device) {
			left_out(tk->c, STAGE_LEFT_DEVICES);
			close(in);
			return 0;
		}
	}
	if (!run && mkdirat(tk->to, name, 0750) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	/* tk->to is root's own: nothing there is anyone else's link. */
	sub.to = run ? tk->to : openat(tk->to, name, STAGE_DIR_FLAGS);
	if (sub.to < 0) {
		err = -errno;
		goto out;
	}
	err = fsutil_dir_for_each(in, take_at, &sub);
	if (!run)
		close(sub.to);
	/* Taken ones are gone from the stage; an empty copy goes too. */
	unlinkat(from, name, AT_REMOVEDIR);
	if (!run && !unlinkat(tk->to, name, AT_REMOVEDIR) && listed)
		tk->c->ndevices--;
	close(in);
	return err;
out:
	if (listed)
		tk->c->ndevices--;
	close(in);
	return err;
}

/* The cap a staged file of st is past (STAGE_LEFT_*), or 0. */
static unsigned int file_cap(const struct take *tk, const struct stat *st)
{
	if ((unsigned long long)st->st_size >
	    testpoint_limit("stage_file_bytes", STAGE_MAX_FILE_BYTES))
		return STAGE_LEFT_FILE_BYTES;
	if (*tk->files >= testpoint_limit("stage_files", STAGE_MAX_FILES))
		return STAGE_LEFT_FILES;
	return 0;
}

static int take_file(struct take *tk, int from, const char *name)
{
	unsigned int cap;
	struct stat st;
	int in, err = 0;

	if (open_staged(tk->stage, from, name, STAGED_FILE, &in, &st)) {
		tk->c->ignored++;
		return 0;
	}
	cap = file_cap(tk, &st);
	if (!cap)
		err = fsutil_move_file_at(from, name, in, st.st_size, tk->to,
					  tk->budget);
	close(in);
	/* The budget said no before a byte was written: none of it is kept. */
	if (err == -ENOSPC && tk->budget->refused) {
		cap = tk->budget->refused == FSUTIL_OVER_BUDGET ?
		      STAGE_LEFT_BUDGET : STAGE_LEFT_RESERVE;
		err = 0;
	}
	if (cap) {
		left_out(tk->c, cap);
		return 0;
	}
	if (err)
		return err;
	(*tk->files)++;
	if (tk->level == AT_DEVICE && has_prefix(name, strlen(name), PROFDIR_DEVICE_INFO) &&
	    !strcmp(name + strlen(PROFDIR_DEVICE_INFO), tk->dev))
		tk->device->has_info = true;
	return 0;
}

static int take_at(int from, const char *name, void *ctx)
{
	struct take *tk = ctx;

	switch (staged_kind(tk, name)) {
	case STAGED_DIR:
		return take_dir(tk, from, name);
	case STAGED_FILE:
		return take_file(tk, from, name);
	default:
		tk->c->ignored++;
		return 0;
	}
}

/*
 * The window's PROF_ directory: one per START.  Should there be more (an
 * earlier one left, or one planted), the latest-named is taken, the rest
 * counted with the strays.
 */
static int pick_run(int dir, const char *name, void *ctx)
{
	char *run = ctx;

	(void)dir;
	if (proflayout_name_ok(name) && strcmp(name, run) > 0)
		memcpy(run, name, PROFDIR_NAME_LEN + 1);
	return 0;
}

void stage_copy_reset(struct stage_copy *c)
{
	c->ignored = 0;
	c->left_out = 0;
	c->left_why = 0;
	c->ndevices = 0;
}

int stage_copy_take(struct stage_copy *c, const struct stage *s, int to,
		    struct fsutil_budget *b)
{
	char run[PROFDIR_NAME_LEN + 1] = "";
	unsigned int files = 0;
	struct take tk = {
		.c = c, .stage = s, .to = to, .level = AT_STAGE, .run = run,
		.files = &files, .budget = b,
	};
	int err;

	if (s->fd < 0 || to < 0)
		return 0;
	err = fsutil_dir_for_each(s->fd, pick_run, run);
	if (!err)
		err = fsutil_dir_for_each(s->fd, take_at, &tk);
	/* What was not taken is no later window's: the stage starts empty. */
	fsutil_dir_remove_all(s->fd, s->uid);
	return err;
}

/* One cap of STAGE_LEFT_*, in words, with the limit it stands for. */
static void cap_text(unsigned int cap, const struct fsutil_budget *b,
		     char *buf, size_t len)
{
	char size[32];

	switch (cap) {
	case STAGE_LEFT_BUDGET:
		snprintf(buf, len, "past the window's %s copy budget (all targets')",
			 fsutil_size_text(b->max, size, sizeof(size)));
		break;
	case STAGE_LEFT_RESERVE:
		snprintf(buf, len, "into the output's free-space reserve");
		break;
	case STAGE_LEFT_FILES:
		snprintf(buf, len, "past %llu files",
			 testpoint_limit("stage_files", STAGE_MAX_FILES));
		break;
	case STAGE_LEFT_FILE_BYTES:
		snprintf(buf, len, "over %s a file",
			 fsutil_size_text(testpoint_limit("stage_file_bytes",
							  STAGE_MAX_FILE_BYTES),
					  size, sizeof(size)));
		break;
	default:
		snprintf(buf, len, "past %d device directories", STAGE_COPY_MAX_DEVICES);
	}
}

const char *stage_copy_left_text(const struct stage_copy *c,
				 const struct fsutil_budget *b, char *buf,
				 size_t len)
{
	unsigned int cap;
	char one[96];
	size_t n = 0;

	*buf = '\0';
	for (cap = 1; cap <= STAGE_LEFT_DEVICES && n < len; cap <<= 1) {
		if (!(c->left_why & cap))
			continue;
		cap_text(cap, b, one, sizeof(one));
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", one);
	}
	return buf;
}
