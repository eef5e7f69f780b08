// SPDX-License-Identifier: MIT
/*
 * A FUSE file system whose daemon never answers some requests, on the raw
 * /dev/fuse protocol (no libfuse), for the tests of msprof's bounded
 * /proc reads (tests/e2e/test_proc_hang.sh).
 *
 *   fuse_stall serve MNT UID GID   (as root) mounts itself on MNT
 *       (allow_other, owned by UID:GID), then serves as UID:GID: the root
 *       directory holds a file "f" and a directory "d"; every other name
 *       is looked up for good, and FLUSH and READ are never answered.
 *       Prints "ready" once mounted, then "stalled <OP> <pid>" for each
 *       request it keeps.  It ends on SIGTERM or SIGKILL; its end aborts
 *       the connection, and every request it kept then fails.
 *   fuse_stall exec FILE PROG ARGS...   opens FILE close-on-exec, prints
 *       "exec pid N", then execs PROG: the exec flushes FILE (a FUSE
 *       file's close sends FLUSH), and waits for the answer while holding
 *       the exec locks (the kernel's exec_update_lock, cred_guard_mutex).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/uio.h>
#include <unistd.h>

#define INO_FILE 2
#define INO_DIR 3

static uid_t owner_uid;
static gid_t owner_gid;

static void reply(int fd, const struct fuse_in_header *in, int error,
		  const void *body, size_t len)
{
	struct fuse_out_header out = {
		.len = (uint32_t)(sizeof(out) + len),
		.error = error,
		.unique = in->unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) },
		{ (void *)body, len },
	};

	/* A request the kernel dropped meanwhile (interrupted) is ENOENT. */
	if (writev(fd, iov, len ? 2 : 1) < 0 && errno != ENOENT)
		perror("fuse_stall: reply");
}

static void attr_of(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == INO_FILE ? 0100666 : 040755;
	a->nlink = ino == INO_FILE ? 1 : 2;
	a->size = ino == INO_FILE ? 4096 : 0;
	a->uid = owner_uid;
	a->gid = owner_gid;
	a->blksize = 4096;
}

static void init(int fd, const struct fuse_in_header *in)
{
	struct fuse_init_out o = {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_write = 65536,
		.max_readahead = 65536,
		.max_background = 16,
		.congestion_threshold = 12,
		.time_gran = 1,
	};

	reply(fd, in, 0, &o, sizeof(o));
}

static void lookup(int fd, const struct fuse_in_header *in, const char *name)
{
	struct fuse_entry_out e = { .entry_valid = 3600, .attr_valid = 3600 };

	if (in->nodeid != FUSE_ROOT_ID ||
	    (strcmp(name, "f") && strcmp(name, "d"))) {
		printf("stalled LOOKUP %s %u\n", name, in->pid);
		fflush(stdout);
		return;
	}
	e.nodeid = strcmp(name, "f") ? INO_DIR : INO_FILE;
	attr_of(e.nodeid, &e.attr);
	reply(fd, in, 0, &e, sizeof(e));
}

/* One request; the ones kept are never answered. */
static void serve_one(int fd, const struct fuse_in_header *in, const char *arg)
{
	struct fuse_attr_out ao = { .attr_valid = 3600 };
	struct fuse_open_out oo = { .fh = 1 };
	struct fuse_statfs_out so = { .st = { .bsize = 4096, .namelen = 255 } };

	switch (in->opcode) {
	case FUSE_INIT:
		init(fd, in);
		break;
	case FUSE_LOOKUP:
		lookup(fd, in, arg);
		break;
	case FUSE_GETATTR:
		attr_of(in->nodeid == FUSE_ROOT_ID ? FUSE_ROOT_ID : in->nodeid,
			&ao.attr);
		reply(fd, in, 0, &ao, sizeof(ao));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		reply(fd, in, 0, &oo, sizeof(oo));
		break;
	case FUSE_READDIR:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_ACCESS:
		reply(fd, in, 0, NULL, 0);
		break;
	case FUSE_STATFS:
		reply(fd, in, 0, &so, sizeof(so));
		break;
	case FUSE_FLUSH:
	case FUSE_READ:
		printf("stalled %s %u\n", in->opcode == FUSE_FLUSH ? "FLUSH" : "READ",
		       in->pid);
		fflush(stdout);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	default:
		reply(fd, in, -ENOSYS, NULL, 0);
	}
}

static int serve(const char *mnt, const char *uid, const char *gid)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	char opts[256];
	ssize_t n;
	int fd;

	owner_uid = (uid_t)strtoul(uid, NULL, 10);
	owner_gid = (gid_t)strtoul(gid, NULL, 10);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("fuse_stall: /dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=%u,group_id=%u,allow_other", fd,
		 owner_uid, owner_gid);
	if (mount("fuse_stall", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("fuse_stall: mount");
		return 1;
	}
	/* The mount is made: the daemon is the user's, as a real one is. */
	if (setgroups(0, NULL) || setgid(owner_gid) || setuid(owner_uid)) {
		perror("fuse_stall: dropping root");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0) {
			/* ENODEV: unmounted. */
			return errno == ENODEV ? 0 : (perror("fuse_stall: read"), 1);
		}
		if ((size_t)n < sizeof(struct fuse_in_header))
			continue;
		buf[n < (ssize_t)sizeof(buf) ? n : n - 1] = '\0';
		serve_one(fd, (const struct fuse_in_header *)buf,
			  buf + sizeof(struct fuse_in_header));
	}
}

static int exec_after_open(const char *file, char **argv)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("fuse_stall: open");
		return 1;
	}
	printf("exec pid %d\n", (int)getpid());
	fflush(stdout);
	execvp(argv[0], argv);
	perror("fuse_stall: exec");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3], argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return exec_after_open(argv[2], argv + 3);
	fprintf(stderr, "usage: fuse_stall serve MNT UID GID | exec FILE PROG ARGS...\n");
	return 2;
}
