// SPDX-License-Identifier: MIT
/*
 * --analyze=on: msprof's communication analysis of each window, in the
 * shape msprof-analyze's cluster reads (its Msprof*Adapter classes):
 * communication.json maps "<op name>@<group>" to the op's time and
 * bandwidth info, communication_matrix.json to its links.  A window
 * without collectives gets {} in both, which cluster reads as a rank
 * without communication data ([] it cannot read); it wants analyze/
 * before it takes a rank in text mode at all.
 *
 * A simulated collective is one device task, with no notify or copy tasks
 * inside it to tell waiting from moving data, so all of its time is
 * counted as waiting (Wait and Synchronization Time; Transit Time 0): the
 * wait is what the slowest rank costs the others, the slow rank itself
 * waits least.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_db.h"
#include "comm.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "outbuf.h"
#include "common/proflayout.h"
#include "profdata.h"
#include "common/testpoint.h"
#include "windows.h"

static const char *const files[] = {
	"communication.json",
	"communication_matrix.json",
	"communication_analyzer.db",	/* the last: not text */
};

#define NFILES (sizeof(files) / sizeof(files[0]))
#define NJSON (NFILES - 1)

/* The files' text, rendered before anything is written. */
struct texts {
	char *buf[NJSON];
	size_t len[NJSON];
};

/* ns as a JSON number of ms, or of µs: exact. */
static void ms(FILE *fp, uint64_t ns)
{
	fprintf(fp, "%llu.%06llu", (unsigned long long)(ns / 1000000),
		(unsigned long long)(ns % 1000000));
}

static void us(FILE *fp, uint64_t ns)
{
	fprintf(fp, "%llu.%03llu", (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

/*
 * The op's key, through b (whose stream the caller writes too: flushed at
 * once).  The name is the task's, which its user writes: escaped.
 */
static void op_key(struct outbuf *b, const struct profdata *p,
		   const struct comm_op *op)
{
	char name[MSPROF_REC_NAMES_MAX + 64], group[256], key[sizeof(name) + 260];

	comm_op_name(name, sizeof(name), p, op);
	comm_group_name(group, sizeof(group), p, op);
	snprintf(key, sizeof(key), "%s@%s", name, group);
	ob_json_str(b, key);
	ob_flush(b);
}

/* An op's (or the total's) time and bandwidth info, as msprof's. */
static void op_info(FILE *fp, uint64_t start, uint64_t dur, uint64_t bytes)
{
	static const char *const types[] = { "RDMA", "HCCS", "PCIE", "SDMA", "SIO" };
	size_t i;

	fputs("{\"Communication Time Info\":{\"Start Timestamp(us)\":", fp);
	us(fp, start);
	fputs(",\"Elapse Time(ms)\":", fp);
	ms(fp, dur);
	fputs(",\"Transit Time(ms)\":0,\"Wait Time(ms)\":", fp);
	ms(fp, dur);
	fputs(",\"Synchronization Time(ms)\":", fp);
	ms(fp, dur);
	fprintf(fp, ",\"Idle Time(ms)\":0,\"Wait Time Ratio\":%d,"
		"\"Synchronization Time Ratio\":%d},"
		"\"Communication Bandwidth Info\":{", dur ? 1 : 0, dur ? 1 : 0);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		/* Shared memory is what msprof files under SDMA. */
		bool sdma = !strcmp(types[i], "SDMA");

		fprintf(fp, "%s\"%s\":{\"Transit Size(MB)\":", i ? "," : "", types[i]);
		ms(fp, sdma ? bytes : 0);	/* MB: 10^6 bytes, as msprof's */
		fputs(",\"Transit Time(ms)\":0,\"Bandwidth(GB/s)\":0,"
		      "\"Large Packet Ratio\":0,\"Size Distribution\":{}}", fp);
	}
	fputs("}}", fp);
}

/*
 * The ops analyzed: an op whose Hccl* call came before the window (its
 * task ran in it) has no group, and cluster matches ops across ranks by
 * name and group; msprof too leaves out ops begun before its window.
 */
static size_t nanalyzed(const struct comm_ops *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		n += comm_op_grouped(&c->v[i]);
	return n;
}

static void communication(struct outbuf *b, const struct profdata *p,
			  const struct comm_ops *c)
{
	FILE *fp = b->fp;
	uint64_t dur = 0, bytes = 0, first = 0;
	bool any = false;
	size_t i;

	fputc('{', fp);
	for (i = 0; i < c->n; i++) {
		const struct comm_op *op = &c->v[i];
		uint64_t start = profmeta_epoch_ns(&p->meta, op->start_ns);

		if (!comm_op_grouped(&c->v[i]))
			continue;
		if (!any || start < first)
			first = start;
		dur += op->end_ns - op->start_ns;
		bytes += comm_op_bytes(&c->v[i]);
		fputs(any ? ",\n" : "\n", fp);
		any = true;
		op_key(b, p, &c->v[i]);
		fputc(':', fp);
		op_info(fp, start, op->end_ns - op->start_ns, comm_op_bytes(op));
	}
	fputs(",\n\"Total HCCL Operators\":", fp);
	op_info(fp, first, dur, bytes);
	fputs("\n}\n", fp);
}

/*
 * Each op's one link: the rank to every rank (msprof's "<src>-<dst>",
 * dst the src when the peer is all of them).
 */
static void matrix(struct outbuf *b, const struct profdata *p,
		   const struct comm_ops *c)
{
	FILE *fp = b->fp;
	bool any = false;
	size_t i;

	fputc('{', fp);
	for (i = 0; i < c->n; i++) {
		if (!comm_op_grouped(&c->v[i]))
			continue;
		fputs(any ? ",\n" : "\n", fp);
		any = true;
		op_key(b, p, &c->v[i]);
		fprintf(fp, ":{\"%d-%d\":{\"Transport Type\":\"LOCAL\","
			"\"Transit Size(MB)\":", p->meta.rank_id, p->meta.rank_id);
		ms(fp, comm_op_bytes(&c->v[i]));
		fputs(",\"Transit Time(ms)\":0,\"Bandwidth(GB/s)\":0}}", fp);
	}
	fputs("\n}\n", fp);
}

static void texts_free(struct texts *x)
{
	size_t i;

	for (i = 0; i < NJSON; i++)
		free(x->buf[i]);
}

/* Both files' text; {} for a window without collectives. */
static int render(struct texts *x, const struct profdata *p,
		  const struct comm_ops *c)
{
	/* Large (its buffer): off the stack. */
	struct outbuf *b = malloc(sizeof(*b));
	size_t i;
	int err = 0;

	memset(x, 0, sizeof(*x));
	if (!b)
		return -ENOMEM;
	for (i = 0; i < NJSON && !err; i++) {
		FILE *fp = open_memstream(&x->buf[i], &x->len[i]);

		if (!fp) {
			err = -ENOMEM;
			break;
		}
		ob_init(b, fp);
		if (!nanalyzed(c))
			fputs("{}", fp);
		else if (i == 0)
			communication(b, p, c);
		else
			matrix(b, p, c);
		if (ferror(fp))
			err = -ENOMEM;
		if (fclose(fp))
			err = -ENOMEM;
	}
	free(b);
	if (err)
		texts_free(x);
	return err;
}

/*
 * ".<file>.<16 hex>.tmp", which a run killed before its rename leaves; the
 * directory is ours (windows_output_dir_open), so nothing here is followed.
 */
static int remove_temp(int afd, const char *entry, void *ctx)
{
	size_t i, n, len = strlen(entry);

	(void)ctx;
	for (i = 0; i < NFILES; i++) {
		n = strlen(files[i]);
		if (len == n + 22 && entry[0] == '.' &&
		    !strncmp(entry + 1, files[i], n) && entry[n + 1] == '.' &&
		    strspn(entry + n + 2, "0123456789abcdef") == 16 &&
		    !strcmp(entry + n + 18, ".tmp") &&
		    unlinkat(afd, entry, 0) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* The db under a temporary name, filled and synced. */
static int write_db_temp(int afd, char *tmp, size_t len, const struct profdata *p,
			 const struct comm_ops *c)
{
	int err, fd = fsutil_create_temp_at(afd, files[NJSON], tmp, len);

	if (fd < 0)
		return fd;
	err = analyze_db_write(afd, tmp, p, c);
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (err)
		unlinkat(afd, tmp, 0);
	return err;
}

/*
 * All under temporary names, then all renamed in over an earlier run's:
 * a failed run leaves none of its files half-written or alone.
 */
static int write_files(int afd, const char *label, const struct texts *x,
		       const struct profdata *p, const struct comm_ops *c)
{
	char tmp[NFILES][NAME_MAX + 1];
	size_t i, made = 0, renamed = 0;
	int err = fsutil_dir_for_each(afd, remove_temp, NULL);

	if (err)
		ERR("%s: a killed run's temporary files are left in %s: %s",
		    label, PROFDIR_ANALYZE, strerror(-err));
	for (err = 0; made < NFILES; made++) {
		if (made < NJSON)
			err = fsutil_write_temp_at(afd, files[made], x->buf[made],
						   x->len[made], tmp[made],
						   sizeof(tmp[made]));
		else
			err = write_db_temp(afd, tmp[made], sizeof(tmp[made]), p, c);
		if (err) {
			ERR("%s: not analyzed: cannot write %s/%s: %s",
			    label, PROFDIR_ANALYZE, files[made], strerror(-err));
			break;
		}
	}
	testpoint("analyze-before-rename");
	for (; renamed < made && !err; renamed++)
		if (renameat(afd, tmp[renamed], afd, files[renamed])) {
			err = -errno;
			ERR("%s: not analyzed: cannot rename into %s/%s: %s",
			    label, PROFDIR_ANALYZE, files[renamed], strerror(-err));
			break;
		}
	if (err) {
		/* The renamed ones too: all of a run or none of it. */
		for (i = 0; i < made; i++)
			unlinkat(afd, i < renamed ? files[i] : tmp[i], 0);
		return err;
	}
	return 0;
}

static int analyze_one(int dirfd, const char *label, void *ctx)
{
	struct comm_ops c = { 0 };
	struct profdata p;
	struct texts x;
	char why[256];
	bool made;
	size_t i;
	int err, afd;

	(void)ctx;
	err = profdata_load_at(&p, dirfd);
	if (err) {
		profdata_strerror(why, sizeof(why), err);
		ERR("%s: not analyzed: %s", label, why);
		return err;
	}
	err = comm_ops_load(&c, &p);
	if (!err)
		err = render(&x, &p, &c);
	if (err) {
		ERR("%s: not analyzed: %s", label, strerror(-err));
		goto out;
	}
	afd = windows_output_dir_open(dirfd, PROFDIR_ANALYZE, &made);
	if (afd < 0) {
		windows_output_dir_strerror(why, sizeof(why), PROFDIR_ANALYZE, afd);
		ERR("%s: not analyzed: %s", label, why);
		err = afd;
		goto out_texts;
	}
	err = write_files(afd, label, &x, &p, &c);
	close(afd);
	if (err) {
		if (made)
			unlinkat(dirfd, PROFDIR_ANALYZE, AT_REMOVEDIR);
		goto out_texts;
	}
	if (!nanalyzed(&c))
		ERR("%s: no communication operators recorded: %s/ holds {} for each",
		    label, PROFDIR_ANALYZE);
	for (i = 0; i < NFILES; i++)
		printf("%s/%s/%s\n", label, PROFDIR_ANALYZE, files[i]);
out_texts:
	texts_free(&x);
out:
	comm_ops_free(&c);
	profdata_free(&p);
	return err;
}

int analyze_run(const char *dir)
{
	const struct window_walk w = {
		.verb = "analyze", .done = "analyzed", .one = analyze_one,
	};

	return windows_walk(dir, &w);
}
