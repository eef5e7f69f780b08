// SPDX-License-Identifier: MIT
/*
 * hccl_collectives N [--die=R]: N ranks (forked processes, one root info)
 * run every collective of npusim's libhccl over several element types,
 * counts, reduce ops and roots, and check each result against what the
 * host computes.  Exit 0 when every rank saw every result right.
 *
 * --die=R: rank R kills itself just before its third collective, as a
 * rank that crashes mid-job; then every other rank must see that
 * collective fail (its task ends, HcclGetCommAsyncError says
 * HCCL_E_TIMEOUT) and exit 3, and exit 0 means exactly that happened.
 * How long they took is printed: the caller bounds it.
 *
 * --key=HEX: see root_from_key().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#define MAX_COUNT	1000
#define SAW_FAILURE	3

enum kind { ALL_REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER };

static const char *const kind_names[] = {
	"allreduce", "broadcast", "allgather", "reducescatter",
};

struct type_info {
	HcclDataType type;
	const char *name;
	size_t size;
	int is_signed;
};

static const struct type_info types[] = {
	{ HCCL_DATA_TYPE_INT8, "int8", 1, 1 },
	{ HCCL_DATA_TYPE_UINT16, "uint16", 2, 0 },
	{ HCCL_DATA_TYPE_INT32, "int32", 4, 1 },
	{ HCCL_DATA_TYPE_UINT32, "uint32", 4, 0 },
	{ HCCL_DATA_TYPE_INT64, "int64", 8, 1 },
	{ HCCL_DATA_TYPE_FP32, "fp32", 4, 1 },
	{ HCCL_DATA_TYPE_FP64, "fp64", 8, 1 },
};

static const uint64_t counts[] = { 1, 7, MAX_COUNT };

struct op_case {
	enum kind kind;
	HcclReduceOp op;
	int root;		/* broadcast: a rank, or -1 for the last */
};

static const struct op_case ops[] = {
	{ ALL_REDUCE, HCCL_REDUCE_SUM, 0 },
	{ ALL_REDUCE, HCCL_REDUCE_PROD, 0 },
	{ ALL_REDUCE, HCCL_REDUCE_MAX, 0 },
	{ ALL_REDUCE, HCCL_REDUCE_MIN, 0 },
	{ BROADCAST, 0, 0 },
	{ BROADCAST, 0, -1 },
	{ ALL_GATHER, 0, 0 },
	{ REDUCE_SCATTER, HCCL_REDUCE_SUM, 0 },
	{ REDUCE_SCATTER, HCCL_REDUCE_MIN, 0 },
};

/* Small integers, so every type and every order of the adds is exact. */
static double value(const struct op_case *c, const struct type_info *t,
		    uint32_t rank, uint64_t i)
{
	if (c->op == HCCL_REDUCE_PROD)
		return 1 + (rank + i) % 2;
	return (double)((rank * 7 + i * 3) % 11) - (t->is_signed ? 5 : 0);
}

static double get(const struct type_info *t, const void *p, uint64_t i)
{
	switch (t->type) {
	case HCCL_DATA_TYPE_INT8: return ((const int8_t *)p)[i];
	case HCCL_DATA_TYPE_UINT16: return ((const uint16_t *)p)[i];
	case HCCL_DATA_TYPE_INT32: return ((const int32_t *)p)[i];
	case HCCL_DATA_TYPE_UINT32: return ((const uint32_t *)p)[i];
	case HCCL_DATA_TYPE_INT64: return (double)((const int64_t *)p)[i];
	case HCCL_DATA_TYPE_FP32: return ((const float *)p)[i];
	default: return ((const double *)p)[i];
	}
}

static void put(const struct type_info *t, void *p, uint64_t i, double v)
{
	switch (t->type) {
	case HCCL_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
	case HCCL_DATA_TYPE_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	case HCCL_DATA_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
	case HCCL_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case HCCL_DATA_TYPE_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
	case HCCL_DATA_TYPE_FP32: ((float *)p)[i] = (float)v; break;
	default: ((double *)p)[i] = v; break;
	}
}

static double combine(HcclReduceOp op, double a, double b)
{
	switch (op) {
	case HCCL_REDUCE_SUM: return a + b;
	case HCCL_REDUCE_PROD: return a * b;
	case HCCL_REDUCE_MAX: return a > b ? a : b;
	default: return a < b ? a : b;
	}
}

/* The op over every rank's element i. */
static double reduced(const struct op_case *c, const struct type_info *t,
		      uint32_t nranks, uint64_t i)
{
	double v = value(c, t, 0, i);
	uint32_t r;

	for (r = 1; r < nranks; r++)
		v = combine(c->op, v, value(c, t, r, i));
	return v;
}

struct rank_ctx {
	uint32_t rank;
	uint32_t nranks;
	HcclComm comm;
	aclrtStream stream;
	void *dev_in;
	void *dev_out;
	unsigned char *in;
	unsigned char *out;
	unsigned char *zero;
	unsigned int done;	/* collectives so far */
	int die;		/* the rank to kill itself, or -1 */
};

/* What this rank puts in, and how many elements of it. */
static uint64_t fill(const struct rank_ctx *x, const struct op_case *c,
		     const struct type_info *t, uint64_t count)
{
	uint64_t n = c->kind == REDUCE_SCATTER ? count * x->nranks : count;
	uint64_t i;

	for (i = 0; i < n; i++)
		put(t, x->in, i, value(c, t, x->rank, i));
	return n;
}

static double want(const struct rank_ctx *x, const struct op_case *c,
		   const struct type_info *t, uint64_t count, uint64_t i,
		   uint32_t root)
{
	switch (c->kind) {
	case ALL_REDUCE:
		return reduced(c, t, x->nranks, i);
	case BROADCAST:
		return value(c, t, root, i);
	case ALL_GATHER:
		return value(c, t, i / count, i % count);
	default:
		return reduced(c, t, x->nranks, x->rank * count + i);
	}
}

static HcclResult submit(struct rank_ctx *x, const struct op_case *c,
			 const struct type_info *t, uint64_t count,
			 uint32_t root)
{
	switch (c->kind) {
	case ALL_REDUCE:
		return HcclAllReduce(x->dev_in, x->dev_out, count, t->type,
				     c->op, x->comm, x->stream);
	case BROADCAST:
		return HcclBroadcast(x->dev_out, count, t->type, root, x->comm,
				     x->stream);
	case ALL_GATHER:
		return HcclAllGather(x->dev_in, x->dev_out, count, t->type,
				     x->comm, x->stream);
	default:
		return HcclReduceScatter(x->dev_in, x->dev_out, count, t->type,
					 c->op, x->comm, x->stream);
	}
}

/* 0: right; 1: wrong or failed; SAW_FAILURE: the collective gave up. */
static int one(struct rank_ctx *x, const struct op_case *c,
	       const struct type_info *t, uint64_t count)
{
	uint32_t root = c->root < 0 ? x->nranks - 1 : (uint32_t)c->root;
	uint64_t in_n = fill(x, c, t, count), out_n, i;
	HcclResult async;
	int ret;

	out_n = c->kind == ALL_GATHER ? count * x->nranks : count;
	/* A broadcast works in place: the root's buffer holds its data. */
	if (aclrtMemcpy(c->kind == BROADCAST ? x->dev_out : x->dev_in,
			in_n * t->size, x->in, in_n * t->size,
			ACL_MEMCPY_HOST_TO_DEVICE) ||
	    (c->kind == BROADCAST && x->rank != root &&
	     aclrtMemcpy(x->dev_out, out_n * t->size, x->zero,
			 out_n * t->size, ACL_MEMCPY_HOST_TO_DEVICE))) {
		fprintf(stderr, "rank %u: copy in failed\n", x->rank);
		return 1;
	}
	if (x->die == (int)x->rank && x->done == 2)
		raise(SIGKILL);
	x->done++;
	ret = submit(x, c, t, count, root);
	if (ret || aclrtSynchronizeStream(x->stream) ||
	    HcclGetCommAsyncError(x->comm, &async)) {
		fprintf(stderr, "rank %u: %s %s count %lu: error %d\n", x->rank,
			kind_names[c->kind], t->name, (unsigned long)count, ret);
		return 1;
	}
	if (async == HCCL_E_TIMEOUT)
		return SAW_FAILURE;
	if (aclrtMemcpy(x->out, out_n * t->size, x->dev_out, out_n * t->size,
			ACL_MEMCPY_DEVICE_TO_HOST))
		return 1;
	for (i = 0; i < out_n; i++)
		if (get(t, x->out, i) != want(x, c, t, count, i, root)) {
			fprintf(stderr, "rank %u of %u: %s op %d root %u %s count %lu: element %lu is %g, not %g\n",
				x->rank, x->nranks, kind_names[c->kind], c->op,
				root, t->name, (unsigned long)count,
				(unsigned long)i, get(t, x->out, i),
				want(x, c, t, count, i, root));
			return 1;
		}
	return 0;
}

static int run_cases(struct rank_ctx *x)
{
	size_t o, t, n;
	int ret;

	for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			for (n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
				ret = one(x, &ops[o], &types[t], counts[n]);
				if (ret)
					return ret;
			}
	return 0;
}

static int rank_main(const HcclRootInfo *root, uint32_t rank,
		     uint32_t nranks, int die)
{
	size_t bytes = (size_t)MAX_COUNT * HCCL_SIM_MAX_RANKS * 8;
	struct rank_ctx x = { .rank = rank, .nranks = nranks, .die = die };
	HcclResult hret;
	int ret;

	x.in = malloc(bytes);
	x.out = malloc(bytes);
	x.zero = calloc(1, bytes);
	if (!x.in || !x.out || !x.zero || aclInit(NULL) || aclrtSetDevice(0) ||
	    aclrtCreateStream(&x.stream) ||
	    aclrtMalloc(&x.dev_in, bytes, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&x.dev_out, bytes, ACL_MEM_MALLOC_HUGE_FIRST)) {
		fprintf(stderr, "rank %u: device setup failed\n", rank);
		return 1;
	}
	hret = HcclCommInitRootInfo(nranks, root, rank, &x.comm);
	if (hret) {
		fprintf(stderr, "rank %u: HcclCommInitRootInfo: error %d\n",
			rank, hret);
		return 1;
	}
	ret = run_cases(&x);
	hret = HcclCommDestroy(x.comm);
	if (hret) {
		fprintf(stderr, "rank %u: HcclCommDestroy: error %d\n", rank,
			hret);
		ret = 1;
	}
	printf("rank %u: %u collectives, %s\n", rank, x.done,
	       ret == SAW_FAILURE ? "saw the failure" : ret ? "failed" : "ok");
	fflush(stdout);	/* the rank ends with _exit() */
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every rank exited as it should: 0 each, or with --die, killed and 3. */
static int reap(const pid_t *pids, uint32_t nranks, int die)
{
	int status, bad = 0;
	uint32_t r;

	for (r = 0; r < nranks; r++) {
		if (waitpid(pids[r], &status, 0) < 0) {
			perror("hccl_collectives: waitpid");
			return 1;
		}
		if ((int)r == die ?
		    WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL :
		    WIFEXITED(status) &&
		    WEXITSTATUS(status) == (die < 0 ? 0 : SAW_FAILURE))
			continue;
		fprintf(stderr, "hccl_collectives: rank %u ended with status 0x%x\n",
			r, status);
		bad = 1;
	}
	return bad;
}

/*
 * --key=HEX: the root info libhccl would make with that key (its layout is
 * libhccl's: a magic string, then 16 bytes), so that a test knows the
 * rendezvous name in /dev/shm beforehand and can plant something there.
 */
static int root_from_key(const char *hex, HcclRootInfo *root)
{
	static const char magic[] = "npusim-hccl-1";
	unsigned char *key = (unsigned char *)root->internal + sizeof(magic);
	unsigned int i, b;

	if (strlen(hex) != 32)
		return -1;
	memset(root, 0, sizeof(*root));
	memcpy(root->internal, magic, sizeof(magic));
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		key[i] = b;
	}
	return 0;
}

static int parse_args(int argc, char **argv, unsigned long *n, int *die,
		      HcclRootInfo *root)
{
	const char *key = NULL;
	char *end;
	int i;

	if (argc < 2)
		return -1;
	*n = strtoul(argv[1], &end, 10);
	if (*end || *n < 1 || *n > HCCL_SIM_MAX_RANKS)
		return -1;
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "--key=", 6))
			key = argv[i] + 6;
		else if (sscanf(argv[i], "--die=%d", die) != 1 || *die < 0 ||
			 (unsigned long)*die >= *n)
			return -1;
	}
	if (key)
		return root_from_key(key, root);
	if (HcclGetRootInfo(root)) {
		fprintf(stderr, "hccl_collectives: HcclGetRootInfo failed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pids[HCCL_SIM_MAX_RANKS];
	HcclRootInfo root;
	unsigned long n;
	double start;
	int die = -1, ret;
	pid_t self = getpid();
	uint32_t r;

	if (parse_args(argc, argv, &n, &die, &root)) {
		fprintf(stderr, "usage: hccl_collectives N [--die=R] [--key=HEX32] (1 <= N <= %d, R < N)\n",
			HCCL_SIM_MAX_RANKS);
		return 2;
	}
	fflush(stdout);
	start = now_s();
	for (r = 0; r < n; r++) {
		pids[r] = fork();
		if (pids[r] < 0) {
			perror("hccl_collectives: fork");
			while (r--)
				kill(pids[r], SIGKILL);
			return 1;
		}
		if (!pids[r]) {
			/* A caller's timeout that ends us ends the ranks too. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != self)
				_exit(1);
			_exit(rank_main(&root, r, n, die));
		}
	}
	ret = reap(pids, n, die);
	printf("hccl_collectives: %lu ranks, %s in %.1f s\n", n,
	       ret ? "FAILED" : die < 0 ? "every result right" :
	       "the others saw the dead rank", now_s() - start);
	return ret;
}
