// SPDX-License-Identifier: MIT
/*
 * The rendezvous: a file in /dev/shm that every rank of a communicator
 * maps.  Rank 0 makes it (0600, named only if the name is free); the
 * others take it only if it is a regular file of their own user, mode
 * 0600 and the expected size, so a file planted under the name by someone
 * else is refused, not used.  The last rank to arrive removes the name,
 * and so does any rank that leaves or gives up (a communicator is never
 * joined late): no name outlives the job.  The mappings live on.
 *
 * Each rank holds a lock (an open file description lock) on the byte of
 * the file at its rank number for as long as it is in the communicator:
 * the kernel drops it when the process dies, however it dies, so a rank
 * waiting for the others sees a dead one at once instead of waiting out
 * HCCL_EXEC_TIMEOUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hccl_internal.h"

#define HCCL_SEG_DIR	"/dev/shm"
#define HCCL_SEG_READY	0x4843434cu	/* "HCCL" */
/* How often a waiter looks again: the others may have given up. */
#define POLL_NS		(2 * 1000 * 1000)
#define WAIT_SLICE_NS	(100 * 1000 * 1000)

uint64_t hccl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

uint64_t hccl_deadline(const char *env)
{
	const char *s = getenv(env);
	unsigned long secs = 120;
	char *end;

	if (s && *s >= '1' && *s <= '9') {
		errno = 0;
		secs = strtoul(s, &end, 10);
		if (errno || *end || secs > 3600)
			secs = 120;
	}
	return hccl_now_ns() + secs * 1000000000ull;
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

static size_t seg_size(uint32_t nranks)
{
	return sizeof(struct hccl_seg_hdr) +
	       (size_t)nranks * HCCL_SIM_MAX_BYTES;
}

static int seg_map(struct hccl_seg *s, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	s->hdr = p;
	s->slots = (unsigned char *)p + sizeof(struct hccl_seg_hdr);
	s->size = size;
	return 0;
}

/*
 * Rank 0: an unnamed file, sized (sparse) and set up, then given its name
 * in one step that fails if the name exists: no rank ever sees it half
 * made, and nothing planted under the name is taken over.
 */
static int seg_create(struct hccl_seg *s, uint32_t nranks)
{
	size_t size = seg_size(nranks);
	char fdpath[32];
	int err;

	s->fd = open(HCCL_SEG_DIR, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->fd < 0)
		return -errno;
	/* Whatever the umask took away: the others check for exactly 0600. */
	if (fchmod(s->fd, 0600) || ftruncate(s->fd, size))
		return -errno;
	err = seg_map(s, size);
	if (err)
		return err;
	s->hdr->nranks = nranks;
	atomic_store_explicit(&s->hdr->ready, HCCL_SEG_READY,
			      memory_order_release);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", s->fd);
	if (linkat(AT_FDCWD, fdpath, AT_FDCWD, s->path, AT_SYMLINK_FOLLOW))
		return -errno;
	s->named = true;
	return 0;
}

/* What another rank made must be exactly what rank 0 would have made. */
static int seg_check(int fd, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0600)
		return -EPERM;
	return (size_t)st.st_size == size ? 0 : -EBADMSG;
}

/* The others: the file may not be there yet, nor set up. */
static int seg_open(struct hccl_seg *s, uint32_t nranks, uint64_t deadline)
{
	size_t size = seg_size(nranks);
	int err;

	/* O_NONBLOCK: a FIFO planted under the name must not stall us. */
	while ((s->fd = open(s->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK |
			     O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			return -errno;
		if (hccl_now_ns() >= deadline)
			return -ETIMEDOUT;
		nap();
	}
	s->named = true;	/* removed only once the rank is ours */
	err = seg_check(s->fd, size);
	if (!err)
		err = seg_map(s, size);
	if (err)
		return err;
	while (atomic_load_explicit(&s->hdr->ready, memory_order_acquire) !=
	       HCCL_SEG_READY) {
		if (hccl_now_ns() >= deadline)
			return -ETIMEDOUT;
		nap();
	}
	return s->hdr->nranks == nranks ? 0 : -EBADMSG;
}

/* Only while the name is still the file we hold: never someone else's. */
static void seg_unname(struct hccl_seg *s)
{
	struct stat st, ours;

	if (!s->named)
		return;
	s->named = false;
	if (fstat(s->fd, &ours) ||
	    fstatat(AT_FDCWD, s->path, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_dev != ours.st_dev || st.st_ino != ours.st_ino)
		return;
	unlink(s->path);
}

/* cmd on the byte of the file that stands for rank. */
static int rank_lock(const struct hccl_seg *s, uint32_t rank, int cmd,
		     struct flock *fl)
{
	*fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET,
			      .l_start = rank, .l_len = 1 };
	return fcntl(s->fd, cmd, fl) ? -errno : 0;
}

/* Held by another process: a second claim of one rank. */
static int seg_claim(struct hccl_seg *s)
{
	struct flock fl;
	int err = rank_lock(s, s->rank, F_OFD_SETLK, &fl);

	return err == -EAGAIN || err == -EACCES ? -EEXIST : err;
}

/* A rank that joined but whose lock is gone has died. */
static bool seg_rank_died(const struct hccl_seg *s)
{
	struct flock fl;
	uint32_t r;

	for (r = 0; r < s->nranks; r++) {
		if (r == s->rank || !atomic_load(&s->hdr->attached[r]))
			continue;
		if (!rank_lock(s, r, F_OFD_GETLK, &fl) && fl.l_type == F_UNLCK)
			return true;
	}
	return false;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val,
		  const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* Wakes every waiter; the generation stays, so none of them passes. */
static int seg_break(struct hccl_seg *s, int err)
{
	atomic_store(&s->hdr->broken, 1);
	futex(&s->hdr->gen, FUTEX_WAKE, INT_MAX, NULL);
	return err;
}

/*
 * A generation barrier on a futex the processes share.  The generation is
 * read before arriving, so a rank already in the next barrier cannot be
 * mistaken for this one's last.  A waiter wakes every slice to see
 * whether another rank has given up or gone; once the generation moved,
 * the barrier passed whatever happened since.
 */
int hccl_seg_barrier(struct hccl_seg *s, uint64_t deadline)
{
	struct hccl_seg_hdr *h = s->hdr;
	uint32_t gen = atomic_load(&h->gen);
	struct timespec ts;
	uint64_t now, left;

	if (atomic_load(&h->broken))
		return -EPIPE;
	if (atomic_fetch_add(&h->count, 1) + 1 == s->nranks) {
		atomic_store(&h->count, 0);
		atomic_fetch_add(&h->gen, 1);
		futex(&h->gen, FUTEX_WAKE, INT_MAX, NULL);
		return 0;
	}
	while (atomic_load(&h->gen) == gen) {
		if (atomic_load(&h->broken) || atomic_load(&h->left) ||
		    seg_rank_died(s))
			return seg_break(s, -EPIPE);
		now = hccl_now_ns();
		if (now >= deadline)
			return seg_break(s, -ETIMEDOUT);
		left = deadline - now < WAIT_SLICE_NS ? deadline - now :
							WAIT_SLICE_NS;
		ts.tv_sec = left / 1000000000u;
		ts.tv_nsec = left % 1000000000u;
		futex(&h->gen, FUTEX_WAIT, gen, &ts);
	}
	return 0;
}

static void key_path(struct hccl_seg *s, const unsigned char *key)
{
	int n, i;

	n = snprintf(s->path, sizeof(s->path), HCCL_SEG_DIR "/npusim-hccl-%u-",
		     (unsigned int)geteuid());
	for (i = 0; i < HCCL_KEY_BYTES; i++)
		n += snprintf(s->path + n, sizeof(s->path) - n, "%02x", key[i]);
}

/* On failure s holds nothing: the caller need not leave. */
int hccl_seg_join(struct hccl_seg *s, const unsigned char key[HCCL_KEY_BYTES],
		  uint32_t nranks, uint32_t rank, uint64_t deadline)
{
	uint8_t no = 0;
	int err;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->rank = rank;
	s->nranks = nranks;	/* checked against the header's at join */
	key_path(s, key);
	err = rank ? seg_open(s, nranks, deadline) : seg_create(s, nranks);
	/* The lock first: once attached, a rank without it is dead. */
	if (!err)
		err = seg_claim(s);
	if (!err && !atomic_compare_exchange_strong(&s->hdr->attached[rank],
						    &no, 1))
		err = -EEXIST;	/* two processes claim one rank */
	if (!err) {
		s->attached = true;
		if (atomic_fetch_add(&s->hdr->joined, 1) + 1 == nranks)
			seg_unname(s);
		/* The first barrier is everyone's arrival. */
		err = hccl_seg_barrier(s, deadline);
	}
	if (err)
		hccl_seg_leave(s);
	return err;
}

void hccl_seg_leave(struct hccl_seg *s)
{
	/* Only a rank that joined may take the name or say it left. */
	if (s->attached) {
		seg_unname(s);
		atomic_fetch_add(&s->hdr->left, 1);
		futex(&s->hdr->gen, FUTEX_WAKE, INT_MAX, NULL);
	}
	if (s->hdr)
		munmap(s->hdr, s->size);
	if (s->fd >= 0)
		close(s->fd);
	s->hdr = NULL;
	s->fd = -1;
	s->attached = false;
}
