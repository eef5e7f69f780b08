// SPDX-License-Identifier: MIT
/*
 * User marks (--msproftx=on): the pack's kinds, the host file's record as
 * the collector writes it from a kernel record whose lengths lie, and the
 * export's pairing of ranges, domains and messages (user/export/mstx.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/mstx.h"
#include "host/collector.h"
#include "host/probes.h"
#include "msprof/mstx.h"
#include "msprof/probe_packs.h"
#include "msprof/recfile.h"
#include "unit.h"

static void test_kinds(void)
{
	CU_ASSERT_EQUAL(msprof_probe_kind("mstxMarkA", MSPROF_LAYER_MSTX), MSTX_MARK);
	CU_ASSERT_EQUAL(msprof_probe_kind("mstxRangeStartA", MSPROF_LAYER_MSTX), MSTX_RANGE_START);
	CU_ASSERT_EQUAL(msprof_probe_kind("mstxRangeEnd", MSPROF_LAYER_MSTX), MSTX_RANGE_END);
	CU_ASSERT_EQUAL(msprof_probe_kind("mstxDomainCreateA", MSPROF_LAYER_MSTX), MSTX_DOMAIN_CREATE);
	CU_ASSERT_EQUAL(msprof_probe_kind("mstxDomainRangeEnd", MSPROF_LAYER_MSTX), MSTX_DOMAIN_RANGE_END);
	CU_ASSERT_EQUAL(msprof_probe_kind("aclrtLaunchKernel", MSPROF_LAYER_MSTX), MSTX_NONE);
	/* Kinds and API ids share a cookie. */
	CU_ASSERT(MSPROF_MAX_APIS <= MSTX_API_MASK + 1);
	CU_ASSERT(MSTX_KINDS < 1u << (32 - MSTX_KIND_SHIFT));
}

static struct msprof_mstx_event ev(uint16_t kind, uint32_t tid, uint64_t t,
				   uint64_t id, uint64_t domain, const char *msg)
{
	struct msprof_mstx_event e = {
		.kind = MSPROF_EV_MSTX, .tgid = 42, .tid = tid, .ns_tid = tid,
		.mstx = kind, .start_ns = t, .end_ns = t + 10, .id = id,
		.domain = domain,
	};

	if (msg) {
		e.msg_len = (uint16_t)strlen(msg);
		memcpy(e.msg, msg, e.msg_len);
	}
	return e;
}

static int got_len;

static int visit(uint16_t type, const void *body, size_t len, void *ctx)
{
	(void)body;
	(void)ctx;
	if (type == MSPROF_REC_MSTX)
		got_len = (int)len;
	return 0;
}

/* A record whose msg_len says more than a message holds keeps no more. */
static void test_collector_bounds(void)
{
	char path[] = "/tmp/msprof-mstx-XXXXXX", err[128];
	struct collector *c = calloc(1, sizeof(*c));
	struct msprof_mstx_event e = ev(MSTX_MARK, 7, 100, 0, 0, "x");
	struct collector_sink out;
	struct probe_set ps;
	int fd, rfd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(probe_set_build(&ps, 1u << MSPROF_LAYER_MSTX, NULL,
					      err, sizeof(err)), 0);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	rfd = open(path, O_RDONLY);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(collector_open(c, 42, fd, &ps), 0);
	e.msg_len = 60000;
	CU_ASSERT_EQUAL(collector_on_event(c, &e, sizeof(e)), 0);
	/* Short of a whole record: not taken. */
	CU_ASSERT_EQUAL(collector_on_event(c, &e, sizeof(e) - 1), 0);
	CU_ASSERT_EQUAL(collector_close(c, 42, &out), 0);
	CU_ASSERT_EQUAL(out.mstx_events, 1);
	got_len = 0;
	CU_ASSERT_EQUAL(recfile_read_fd(rfd, NULL, visit, NULL, NULL), 0);
	CU_ASSERT_EQUAL(got_len, (int)(MSPROF_MSTX_HEAD + MSPROF_MSTX_MSG - 1));
	close(rfd);
	probe_set_free(&ps);
	free(c);
}

static void add(struct mstx_set **s, struct msprof_mstx_event e)
{
	CU_ASSERT_EQUAL(mstx_add(s, &e, MSPROF_MSTX_HEAD + e.msg_len), 0);
}

/* Marks, ranges paired by domain and id, across threads; halves dropped. */
static void test_pairing(void)
{
	struct mstx_set *s = NULL;
	const struct mstx_row *r;

	add(&s, ev(MSTX_RANGE_END, 1, 5, 99, 0, NULL));	/* started before the window */
	add(&s, ev(MSTX_DOMAIN_CREATE, 1, 10, 0xd0, 0, "dom"));
	add(&s, ev(MSTX_RANGE_START, 1, 20, 1, 0, "step 0"));
	add(&s, ev(MSTX_DOMAIN_RANGE_START, 1, 30, 1, 0xd0, "inner"));
	add(&s, ev(MSTX_MARK, 2, 40, 0, 0, "=a,\"b\"\n\x1b\xff"));
	add(&s, ev(MSTX_DOMAIN_RANGE_END, 1, 50, 1, 0xd0, NULL));
	add(&s, ev(MSTX_RANGE_END, 3, 60, 1, 0, NULL));	/* ended on another thread */
	add(&s, ev(MSTX_RANGE_START, 1, 70, 2, 0, "open"));	/* still open at stop */
	CU_ASSERT_EQUAL_FATAL(mstx_finish(s), 0);
	CU_ASSERT_EQUAL_FATAL(s->nrows, 3);
	CU_ASSERT_EQUAL(s->unpaired, 2);
	r = &s->rows[0];
	CU_ASSERT_EQUAL(r->type, MSTX_TYPE_START_END);
	CU_ASSERT_STRING_EQUAL(mstx_text(s, r->msg), "step 0");
	CU_ASSERT_STRING_EQUAL(mstx_text(s, r->domain), "default");
	CU_ASSERT_EQUAL(r->start_ns, 20);
	CU_ASSERT_EQUAL(r->end_ns, 60);
	CU_ASSERT_EQUAL(r->end_tid, 3);
	CU_ASSERT(r->flags & MSTX_ROW_OTHER_THREAD);
	r = &s->rows[1];
	CU_ASSERT_STRING_EQUAL(mstx_text(s, r->domain), "dom");
	CU_ASSERT_EQUAL(r->end_ns, 50);
	CU_ASSERT_EQUAL(r->range_id, 1);
	r = &s->rows[2];
	CU_ASSERT_EQUAL(r->type, MSTX_TYPE_MARKER);
	CU_ASSERT_EQUAL(r->start_ns, r->end_ns);
	CU_ASSERT_EQUAL(r->tid, 2);
	/* The task's bytes: what a terminal or a parser would act on is '?'. */
	CU_ASSERT_STRING_EQUAL(mstx_text(s, r->msg), "=a,\"b\"???");
	mstx_free(s);
	CU_ASSERT_EQUAL(mstx_finish(NULL), 0);
}

/* A record's length bounds its message, whatever msg_len says. */
static void test_length_bounds(void)
{
	struct msprof_mstx_event e = ev(MSTX_MARK, 1, 1, 0, 0, "abcdef");
	struct mstx_set *s = NULL;

	e.msg_len = 200;
	CU_ASSERT_EQUAL(mstx_add(&s, &e, MSPROF_MSTX_HEAD + 3), 0);
	e.mstx = MSTX_KINDS;	/* a newer writer's kind: skipped */
	CU_ASSERT_EQUAL(mstx_add(&s, &e, MSPROF_MSTX_HEAD), 0);
	CU_ASSERT_EQUAL_FATAL(mstx_finish(s), 0);
	CU_ASSERT_EQUAL_FATAL(s->nrows, 1);
	CU_ASSERT_STRING_EQUAL(mstx_text(s, s->rows[0].msg), "abc");
	mstx_free(s);
}

/*
 * A domain's handle freed and handed out again: each mark is named by the
 * create before it, one never created in the window "unknown".
 */
static void test_domain_reused(void)
{
	struct mstx_set *s = NULL;

	add(&s, ev(MSTX_DOMAIN_MARK, 1, 5, 0, 0xd0, "before"));
	add(&s, ev(MSTX_DOMAIN_CREATE, 1, 10, 0xd0, 0, "first"));
	add(&s, ev(MSTX_DOMAIN_MARK, 1, 20, 0, 0xd0, "a"));
	add(&s, ev(MSTX_DOMAIN_CREATE, 1, 30, 0xd0, 0, "second"));
	add(&s, ev(MSTX_DOMAIN_MARK, 1, 40, 0, 0xd0, "b"));
	CU_ASSERT_EQUAL_FATAL(mstx_finish(s), 0);
	CU_ASSERT_EQUAL_FATAL(s->nrows, 3);
	CU_ASSERT_STRING_EQUAL(mstx_text(s, s->rows[0].domain), "unknown");
	CU_ASSERT_STRING_EQUAL(mstx_text(s, s->rows[1].domain), "first");
	CU_ASSERT_STRING_EQUAL(mstx_text(s, s->rows[2].domain), "second");
	mstx_free(s);
}

/* Starts that never end: each counted once, in one pass (no pair search). */
static void test_many_open(void)
{
	struct mstx_set *s = NULL;
	uint64_t i;

	for (i = 1; i <= 20000; i++)
		add(&s, ev(MSTX_RANGE_START, 1, i, i, 0, "open"));
	add(&s, ev(MSTX_RANGE_END, 1, 30000, 7, 0, NULL));
	CU_ASSERT_EQUAL_FATAL(mstx_finish(s), 0);
	CU_ASSERT_EQUAL(s->nrows, 1);
	CU_ASSERT_EQUAL(s->unpaired, 19999);
	mstx_free(s);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static const CU_TestInfo tests[] = {
		{ "kinds by name, and room in the cookie", test_kinds },
		{ "the collector keeps no more message than there is", test_collector_bounds },
		{ "marks, ranges paired by domain and id, halves dropped", test_pairing },
		{ "a record's length bounds its message", test_length_bounds },
		{ "a reused domain handle: each mark the create before it", test_domain_reused },
		{ "ranges left open: counted, in one pass", test_many_open },
		CU_TEST_INFO_NULL,
	};

	return add_suite("mstx", tests);
}

UNIT_SUITE(register_tests)
