// SPDX-License-Identifier: MIT
/*
 * Communicators: how ranks find each other (a root info from rank 0, or a
 * rank table file they all read), and their lifetime.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hccl_internal.h"

#define ROOT_INFO_MAGIC		"npusim-hccl-1"
#define RANK_TABLE_MAX		(1 << 20)
#define RANK_KEY		"\"rank_id\""

/* Handles are checked against the live communicators, never trusted. */
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hccl_comm *comms;

static HcclResult errno_result(int err)
{
	switch (err) {
	case -ETIMEDOUT:
	case -EPIPE:
		return HCCL_E_TIMEOUT;
	case -ENOMEM:
		return HCCL_E_MEMORY;
	case -EEXIST:
	case -EINVAL:
		return HCCL_E_PARA;
	default:
		return HCCL_E_SYSCALL;
	}
}

static HcclResult comm_init(const unsigned char key[HCCL_KEY_BYTES],
			    uint32_t nranks, uint32_t rank, HcclComm *out)
{
	struct hccl_comm *c;
	int err;

	if (!out)
		return HCCL_E_PTR;
	if (!nranks || nranks > HCCL_SIM_MAX_RANKS || rank >= nranks)
		return HCCL_E_PARA;
	c = calloc(1, sizeof(*c));
	if (!c)
		return HCCL_E_MEMORY;
	c->rank = rank;
	c->nranks = nranks;
	err = hccl_seg_join(&c->seg, key, nranks, rank,
			    hccl_deadline("HCCL_CONNECT_TIMEOUT"));
	if (err) {
		free(c);
		return errno_result(err);
	}
	pthread_mutex_lock(&comms_lock);
	c->next = comms;
	comms = c;
	pthread_mutex_unlock(&comms_lock);
	*out = c;
	return HCCL_SUCCESS;
}

/* A fresh random key: the segment's name cannot be guessed in advance. */
static HcclResult get_root_info(HcclRootInfo *rootInfo)
{
	unsigned char *key;

	if (!rootInfo)
		return HCCL_E_PTR;
	memset(rootInfo, 0, sizeof(*rootInfo));
	memcpy(rootInfo->internal, ROOT_INFO_MAGIC, sizeof(ROOT_INFO_MAGIC));
	key = (unsigned char *)rootInfo->internal + sizeof(ROOT_INFO_MAGIC);
	if (getrandom(key, HCCL_KEY_BYTES, 0) != HCCL_KEY_BYTES)
		return HCCL_E_SYSCALL;
	return HCCL_SUCCESS;
}

static HcclResult init_root_info(uint32_t nRanks, const HcclRootInfo *rootInfo,
				 uint32_t rank, HcclComm *comm)
{
	if (!rootInfo)
		return HCCL_E_PTR;
	if (memcmp(rootInfo->internal, ROOT_INFO_MAGIC, sizeof(ROOT_INFO_MAGIC)))
		return HCCL_E_PARA;
	return comm_init((const unsigned char *)rootInfo->internal +
			 sizeof(ROOT_INFO_MAGIC), nRanks, rank, comm);
}

/* FNV-1a, twice with different bases: 128 bits of key from a table. */
static void hash_key(const void *data, size_t len,
		     unsigned char key[HCCL_KEY_BYTES])
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
	const unsigned char *p = data;
	size_t i, j;

	for (i = 0; i < len; i++)
		for (j = 0; j < 2; j++)
			h[j] = (h[j] ^ p[i]) * 0x100000001b3ull;
	memcpy(key, h, HCCL_KEY_BYTES);
}

static uint32_t count_ranks(const char *text)
{
	uint32_t n = 0;

	for (; (text = strstr(text, RANK_KEY)); text += sizeof(RANK_KEY) - 1)
		n++;
	return n;
}

/*
 * The ranks given one rank table meet: its key is its file's identity
 * and content, so two jobs with look-alike tables never share a segment.
 */
static HcclResult read_table(const char *path, char **text, struct stat *st)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return HCCL_E_OPEN_FILE_FAILURE;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_size <= 0 ||
	    st->st_size > RANK_TABLE_MAX) {
		close(fd);
		return HCCL_E_PARA;
	}
	*text = calloc(1, st->st_size + 1);
	if (!*text) {
		close(fd);
		return HCCL_E_MEMORY;
	}
	n = pread(fd, *text, st->st_size, 0);
	close(fd);
	if (n != st->st_size) {
		free(*text);
		return HCCL_E_OPEN_FILE_FAILURE;
	}
	return HCCL_SUCCESS;
}

static HcclResult init_cluster_info(const char *clusterInfo, uint32_t rank,
				    HcclComm *comm)
{
	unsigned char key[HCCL_KEY_BYTES];
	struct stat st;
	char *text;
	HcclResult ret;
	uint32_t nranks;
	int i;

	if (!clusterInfo || !comm)
		return HCCL_E_PTR;
	ret = read_table(clusterInfo, &text, &st);
	if (ret)
		return ret;
	nranks = count_ranks(text);
	hash_key(text, st.st_size, key);
	free(text);
	for (i = 0; i < 8; i++) {
		key[i] ^= (unsigned char)((uint64_t)st.st_ino >> (8 * i));
		key[8 + i] ^= (unsigned char)((uint64_t)st.st_dev >> (8 * i));
	}
	return comm_init(key, nranks, rank, comm);
}

struct hccl_comm *hccl_comm_hold(HcclComm h)
{
	struct hccl_comm *c;

	pthread_mutex_lock(&comms_lock);
	for (c = comms; c && c != h; c = c->next)
		;
	if (c)
		atomic_fetch_add(&c->pending, 1);
	pthread_mutex_unlock(&comms_lock);
	return c;
}

void hccl_comm_put(struct hccl_comm *c)
{
	atomic_fetch_sub(&c->pending, 1);
}

/* Unlinked first: no new collective can start on it while it drains. */
static struct hccl_comm *comm_unlink(HcclComm h)
{
	struct hccl_comm **link, *c = NULL;

	pthread_mutex_lock(&comms_lock);
	for (link = &comms; *link; link = &(*link)->next)
		if (*link == h) {
			c = *link;
			*link = c->next;
			break;
		}
	pthread_mutex_unlock(&comms_lock);
	return c;
}

/*
 * A queued collective waits at most HCCL_EXEC_TIMEOUT for the others, so
 * the drain is bounded; one still running after that keeps its memory.
 */
static HcclResult comm_destroy(HcclComm comm)
{
	uint64_t deadline = hccl_deadline("HCCL_EXEC_TIMEOUT") +
			    1000000000ull;
	struct timespec nap = { 0, 1000000 };
	struct hccl_comm *c = comm_unlink(comm);

	if (!c)
		return HCCL_E_PARA;
	while (atomic_load(&c->pending))
		if (hccl_now_ns() >= deadline)
			return HCCL_E_TIMEOUT;
		else
			nanosleep(&nap, NULL);
	hccl_seg_leave(&c->seg);
	free(c);
	return HCCL_SUCCESS;
}

static HcclResult comm_get(HcclComm comm, uint32_t *out, int what)
{
	struct hccl_comm *c;

	if (!out)
		return HCCL_E_PTR;
	c = hccl_comm_hold(comm);
	if (!c)
		return HCCL_E_PARA;
	*out = what == 0 ? c->rank : what == 1 ? c->nranks :
	       atomic_load(&c->failed) ? HCCL_E_TIMEOUT : HCCL_SUCCESS;
	hccl_comm_put(c);
	return HCCL_SUCCESS;
}

static HcclResult get_rank_id(HcclComm comm, uint32_t *rank)
{
	return comm_get(comm, rank, 0);
}

static HcclResult get_rank_size(HcclComm comm, uint32_t *rankSize)
{
	return comm_get(comm, rankSize, 1);
}

static HcclResult get_async_error(HcclComm comm, HcclResult *asyncError)
{
	uint32_t v;
	HcclResult ret;

	if (!asyncError)
		return HCCL_E_PTR;
	ret = comm_get(comm, &v, 2);
	if (!ret)
		*asyncError = v;
	return ret;
}

/* --- the API, each call reported as CANN's HCCL reports it ---------------- */

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
	return HCCL_REPORTED(HcclGetRootInfo, get_root_info(rootInfo));
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo,
				uint32_t rank, HcclComm *comm)
{
	return HCCL_REPORTED(HcclCommInitRootInfo,
			     init_root_info(nRanks, rootInfo, rank, comm));
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
				   HcclComm *comm)
{
	return HCCL_REPORTED(HcclCommInitClusterInfo,
			     init_cluster_info(clusterInfo, rank, comm));
}

HcclResult HcclCommDestroy(HcclComm comm)
{
	return HCCL_REPORTED(HcclCommDestroy, comm_destroy(comm));
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
	return HCCL_REPORTED(HcclGetRankId, get_rank_id(comm, rank));
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
	return HCCL_REPORTED(HcclGetRankSize, get_rank_size(comm, rankSize));
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
	return HCCL_REPORTED(HcclGetCommAsyncError,
			     get_async_error(comm, asyncError));
}
