// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "ctl/start_at.h"
#include "unit.h"

#define S 1000000000ull
/* 2026-12-01T04:00:00Z */
#define T0 1796097600ull

static char err[256];

static uint64_t parse_ok(const char *when, uint64_t now_s)
{
	uint64_t at = 0;

	err[0] = '\0';
	CU_ASSERT_EQUAL(start_at_parse(when, now_s * S, &at, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	return at;
}

static void parse_bad(const char *when, uint64_t now_s, const char *needle)
{
	uint64_t at;

	err[0] = '\0';
	CU_ASSERT_EQUAL(start_at_parse(when, now_s * S, &at, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

static void test_epoch(void)
{
	CU_ASSERT_EQUAL(parse_ok("@1796097600", T0 - 5), T0 * S);
	CU_ASSERT_EQUAL(parse_ok("@1796097600.5", T0 - 5), T0 * S + S / 2);
	CU_ASSERT_EQUAL(parse_ok("@1796097600.000000001", T0), T0 * S + 1);
	/* Now itself is not the past. */
	CU_ASSERT_EQUAL(parse_ok("@1796097600", T0), T0 * S);
}

static void test_iso(void)
{
	CU_ASSERT_EQUAL(parse_ok("2026-12-01T04:00:00Z", T0 - 1), T0 * S);
	CU_ASSERT_EQUAL(parse_ok("2026-12-01t04:00:00z", T0 - 1), T0 * S);
	CU_ASSERT_EQUAL(parse_ok("2026-12-01T05:00:00+01:00", T0 - 1), T0 * S);
	CU_ASSERT_EQUAL(parse_ok("2026-11-30T22:30:00-0530", T0 - 1), T0 * S);
	CU_ASSERT_EQUAL(parse_ok("2026-12-01T04:00:00.25Z", T0 - 1),
			T0 * S + S / 4);
	/* Across a leap day and a year's end. */
	CU_ASSERT_EQUAL(parse_ok("2028-02-29T00:00:00Z", 1835395200ull - 60),
			1835395200ull * S);
	CU_ASSERT_EQUAL(parse_ok("2027-01-01T00:00:00+00:00", 1798761600ull - 60),
			1798761600ull * S);
}

static void test_refused(void)
{
	parse_bad("@1796097599", T0, "in the past");
	parse_bad("2026-12-01T03:59:59.999Z", T0, "in the past");
	parse_bad("@1796184001", T0, "more than a day ahead");
	parse_bad("2026-12-02T04:00:01Z", T0, "more than a day ahead");
	/* Without a zone each node would read its own local time. */
	parse_bad("2026-12-01T04:00:00", T0, "ISO 8601");
	parse_bad("2026-12-01 04:00:00Z", T0, "ISO 8601");
	parse_bad("2026-02-29T04:00:00Z", T0, "ISO 8601");
	parse_bad("2026-13-01T04:00:00Z", T0, "ISO 8601");
	parse_bad("2026-12-01T24:00:00Z", T0, "ISO 8601");
	parse_bad("2026-12-01T04:00:60Z", T0, "ISO 8601");
	parse_bad("2026-12-01T04:00:00+24:00", T0, "ISO 8601");
	parse_bad("2026-12-01T04:00:00.Z", T0, "ISO 8601");
	parse_bad("2026-12-01T04:00:00.1234567891Z", T0, "ISO 8601");
	parse_bad("2026-12-01T04:00:00Zjunk", T0, "ISO 8601");
	parse_bad("@", T0, "ISO 8601");
	parse_bad("@-5", T0, "ISO 8601");
	parse_bad("@1796097600.", T0, "ISO 8601");
	parse_bad("@17960976001234567890", T0, "ISO 8601");
	parse_bad("now", T0, "ISO 8601");
	parse_bad("", T0, "ISO 8601");
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static CU_TestInfo tests[] = {
		{ "@<epoch seconds>[.fraction]", test_epoch },
		{ "ISO 8601 with its zone", test_iso },
		{ "past, too far, zone-less and malformed times refused", test_refused },
		CU_TEST_INFO_NULL,
	};

	return add_suite("start at", tests);
}

UNIT_SUITE(register_tests)
