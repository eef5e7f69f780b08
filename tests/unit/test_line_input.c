// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ctl/line_input.h"
#include "unit.h"

/* A reader over a pipe as the control FIFO is read: no prompt, non-blocking. */
static struct line_input *open_pipe(int p[2])
{
	struct line_input *in = NULL;

	CU_ASSERT_FATAL(pipe2(p, O_NONBLOCK) == 0);
	CU_ASSERT_FATAL(line_input_open_fd(&in, p[0], NULL) == 0);
	return in;
}

static void put(int fd, const char *s, size_t n)
{
	CU_ASSERT_EQUAL(write(fd, s, n), (ssize_t)n);
}

static void test_lines_across_reads(void)
{
	char line[16];
	int p[2];
	struct line_input *in = open_pipe(p);

	put(p[1], "sta", 3);
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 0);
	put(p[1], "rt\nstop\n", 8);
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "start");
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "stop");
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 0);
	/* Nothing to read is no end of input. */
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 0);
	close(p[1]);
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), -1);
	line_input_close(in);
	close(p[0]);
}

/* A line too long is said once and dropped to its newline, however fed. */
static void test_too_long(void)
{
	char line[16], big[6000];
	int p[2], i;
	struct line_input *in = open_pipe(p);

	put(p[1], "0123456789abcdef\nquit\n", 22);
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), LINE_INPUT_TOO_LONG);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "quit");
	/* Longer than the reader's buffer: fed in parts, still one refusal. */
	memset(big, 'x', sizeof(big));
	put(p[1], big, sizeof(big));
	put(p[1], "\nstatus\n", 8);
	for (i = 0; i < 4; i++)
		line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), LINE_INPUT_TOO_LONG);
	line_input_feed(in);
	line_input_feed(in);
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "status");
	CU_ASSERT_EQUAL(line_input_next(in, line, sizeof(line)), 0);
	line_input_close(in);
	close(p[0]);
	close(p[1]);
}

static int register_tests(unsigned int *skipped __attribute__((unused)))
{
	static CU_TestInfo tests[] = {
		{ "lines split across reads; an empty pipe is no end", test_lines_across_reads },
		{ "a line too long: said once, dropped to its newline", test_too_long },
		CU_TEST_INFO_NULL,
	};

	return add_suite("line input", tests);
}

UNIT_SUITE(register_tests)
