// SPDX-License-Identifier: MIT
/*
 * The probe packs' tables (see include/msprof/probe_packs.h).  Signatures
 * are the documented ones; an argument the x86-64 ABI splits (CUDA's dim3
 * by value takes two registers) is shown as the registers it occupies.
 */
#include <string.h>

#include "msprof/mstx.h"
#include "msprof/osrt.h"
#include "msprof/probe_packs.h"

#define U(n) { n, MSPROF_ARG_UINT }
#define I(n) { n, MSPROF_ARG_INT }
#define X(n) { n, MSPROF_ARG_HEX }
#define FN(n, ...) { .name = n, .args = { __VA_ARGS__ } }
/* A task queue's function: its role, and which argument is its key. */
#define QFN(n, r, k, at, ...) { .name = n, .args = { __VA_ARGS__ }, \
	.role = MSPROF_ROLE_##r, .key_kind = MSPROF_QUEUE_KEY_##k, .key = at }
/* A user-mark function: what it does (include/msprof/mstx.h). */
#define MFN(n, k, ...) { .name = n, .args = { __VA_ARGS__ }, .kind = MSTX_##k }
/* A pthread function of --host-sys=osrt: kept always or when it waited. */
#define OFN(n, k, ...) { .name = n, .args = { __VA_ARGS__ }, .kind = OSRT_KIND_##k }
#define PACK_FUNCS(t) t, sizeof(t) / sizeof(t[0])

/* The ACL runtime API: CANN's libascendcl, and npusim which mimics it. */
static const struct msprof_probe_func acl_funcs[] = {
	FN("aclInit"),
	FN("aclFinalize"),
	FN("aclrtSetDevice", I("device")),
	FN("aclrtResetDevice", I("device")),
	FN("aclrtGetDeviceCount"),
	FN("aclrtCreateStream", X("stream_out")),
	FN("aclrtDestroyStream", X("stream")),
	FN("aclrtMalloc", X("ptr_out"), U("size"), U("policy")),
	FN("aclrtMallocHost", X("ptr_out"), U("size")),
	FN("aclrtFree", X("ptr")),
	FN("aclrtFreeHost", X("ptr")),
	FN("aclrtMemcpy", X("dst"), U("dest_max"), X("src"), U("count"), U("kind")),
	FN("aclrtMemcpyAsync", X("dst"), U("dest_max"), X("src"), U("count"), U("kind"), X("stream")),
	FN("aclrtMemset", X("ptr"), U("max_count"), I("value"), U("count")),
	FN("aclrtSynchronizeStream", X("stream")),
	FN("aclrtSynchronizeDevice"),
	FN("aclrtLaunchKernel", X("kernel"), U("block_dim"), X("args"), U("args_size"), X("stream")),
	FN("aclrtRecordEvent", X("event"), X("stream")),
	FN("aclrtSynchronizeEvent", X("event")),
	FN("aclrtLaunchCallback", X("fn"), X("user_data"), U("block_type"), X("stream")),
	FN("aclmdlExecute", U("model_id"), X("input"), X("output")),
	FN("aclmdlExecuteAsync", U("model_id"), X("input"), X("output"), X("stream")),
	FN("aclopExecuteV2", X("op_type"), U("num_inputs"), X("input_desc"), X("inputs"), U("num_outputs"), X("output_desc")),
	FN("aclopCompileAndExecute", X("op_type"), U("num_inputs"), X("input_desc"), X("inputs"), U("num_outputs"), X("output_desc")),
};

/* CANN's lower runtime layer, libruntime. */
static const struct msprof_probe_func rt_funcs[] = {
	FN("rtKernelLaunch", X("stub"), U("block_dim"), X("args"), U("args_size"), X("sm_desc"), X("stream")),
	FN("rtMemcpy", X("dst"), U("dest_max"), X("src"), U("count"), U("kind")),
	FN("rtMemcpyAsync", X("dst"), U("dest_max"), X("src"), U("count"), U("kind"), X("stream")),
	FN("rtStreamSynchronize", X("stream")),
	FN("rtMalloc", X("ptr_out"), U("size"), U("type")),
	FN("rtFree", X("ptr")),
};

/* CANN's collectives, libhccl. */
static const struct msprof_probe_func hccl_funcs[] = {
	FN("HcclAllReduce", X("send"), X("recv"), U("count"), U("dtype"), U("op"), X("comm")),
	FN("HcclBroadcast", X("buf"), U("count"), U("dtype"), U("root"), X("comm"), X("stream")),
	FN("HcclAllGather", X("send"), X("recv"), U("send_count"), U("dtype"), X("comm"), X("stream")),
	FN("HcclReduceScatter", X("send"), X("recv"), U("recv_count"), U("dtype"), U("op"), X("comm")),
	FN("HcclSend", X("send"), U("count"), U("dtype"), U("dest_rank"), X("comm"), X("stream")),
	FN("HcclRecv", X("recv"), U("count"), U("dtype"), U("src_rank"), X("comm"), X("stream")),
};

/* The CUDA runtime, libcudart (also as wheels' libcudart-<hash>.so). */
static const struct msprof_probe_func cudart_funcs[] = {
	FN("cudaSetDevice", I("device")),
	FN("cudaMalloc", X("ptr_out"), U("size")),
	FN("cudaMallocHost", X("ptr_out"), U("size")),
	FN("cudaMallocManaged", X("ptr_out"), U("size"), U("flags")),
	FN("cudaFree", X("ptr")),
	FN("cudaFreeHost", X("ptr")),
	FN("cudaMemcpy", X("dst"), X("src"), U("count"), U("kind")),
	FN("cudaMemcpyAsync", X("dst"), X("src"), U("count"), U("kind"), X("stream")),
	FN("cudaMemset", X("ptr"), I("value"), U("count")),
	FN("cudaMemsetAsync", X("ptr"), I("value"), U("count"), X("stream")),
	/* dim3 by value: x and y in one register, z in the next. */
	FN("cudaLaunchKernel", X("func"), X("grid_xy"), U("grid_z"), X("block_xy"), U("block_z"), X("args")),
	FN("cudaStreamCreate", X("stream_out")),
	FN("cudaStreamDestroy", X("stream")),
	FN("cudaStreamSynchronize", X("stream")),
	FN("cudaDeviceSynchronize"),
	FN("cudaEventRecord", X("event"), X("stream")),
	FN("cudaEventSynchronize", X("event")),
	FN("cudaGraphLaunch", X("graph_exec"), X("stream")),
};

/* The CUDA driver API, libcuda. */
static const struct msprof_probe_func cuda_driver_funcs[] = {
	FN("cuLaunchKernel", X("func"), U("grid_x"), U("grid_y"), U("grid_z"), U("block_x"), U("block_y")),
	FN("cuMemAlloc_v2", X("ptr_out"), U("size")),
	FN("cuMemFree_v2", X("ptr")),
	FN("cuMemcpyHtoD_v2", X("dst"), X("src"), U("size")),
	FN("cuMemcpyDtoH_v2", X("dst"), X("src"), U("size")),
	FN("cuMemcpyDtoD_v2", X("dst"), X("src"), U("size")),
	FN("cuMemcpyHtoDAsync_v2", X("dst"), X("src"), U("size"), X("stream")),
	FN("cuMemcpyDtoHAsync_v2", X("dst"), X("src"), U("size"), X("stream")),
	FN("cuCtxSynchronize"),
	FN("cuStreamSynchronize", X("stream")),
	FN("cuEventRecord", X("event"), X("stream")),
	FN("cuEventSynchronize", X("event")),
};

/*
 * CANN's user marks, libms_tools_ext (npusim has its own).  Their probes
 * read the message at entry (bpf/msprof.bpf.c: mstx_enter): its kind, by
 * name, says where it is (its .mstx).
 */
static const struct msprof_probe_func mstx_funcs[] = {
	MFN("mstxMarkA", MARK, X("message"), X("stream")),
	MFN("mstxRangeStartA", RANGE_START, X("message"), X("stream")),
	MFN("mstxRangeEnd", RANGE_END, U("range_id")),
	MFN("mstxDomainCreateA", DOMAIN_CREATE, X("name")),
	MFN("mstxDomainMarkA", DOMAIN_MARK, X("domain"), X("message"), X("stream")),
	MFN("mstxDomainRangeStartA", DOMAIN_RANGE_START, X("domain"), X("message"),
	    X("stream")),
	MFN("mstxDomainRangeEnd", DOMAIN_RANGE_END, X("domain"), U("range_id")),
};

static const char *const no_devices[] = { NULL };

/*
 * --host-sys=osrt: the four pthread functions msprof's ltrace keeps, and
 * the calls that can block, kept only when they waited (OSRT_KIND_BLOCKING).
 * glibc 2.34 and later has them all in libc; before, in libpthread.
 */
static const struct msprof_probe_func osrt_funcs[] = {
	OFN("pthread_attr_init", KEPT, X("attr")),
	OFN("pthread_create", KEPT, X("thread"), X("attr"), X("start_routine"), X("arg")),
	OFN("pthread_join", KEPT, X("thread"), X("retval")),
	OFN("pthread_mutex_init", KEPT, X("mutex"), X("attr")),
	OFN("pthread_mutex_lock", BLOCKING, X("mutex")),
	OFN("pthread_cond_wait", BLOCKING, X("cond"), X("mutex")),
	OFN("pthread_cond_timedwait", BLOCKING, X("cond"), X("mutex"), X("abstime")),
	OFN("sem_wait", BLOCKING, X("sem")),
	OFN("pthread_rwlock_rdlock", BLOCKING, X("rwlock")),
	OFN("pthread_rwlock_wrlock", BLOCKING, X("rwlock")),
};

/*
 * npusim's task queue (npusim/npusim_queue.h): both ends carry the item's
 * sequence number, unique in the process.
 */
static const struct msprof_probe_func npusim_queue_funcs[] = {
	QFN("npusimQueueEnqueue", ENQUEUE, ITEM, 1, X("queue"), U("seq"), X("item")),
	QFN("npusimQueueRun", DEQUEUE, ITEM, 1, X("queue"), U("seq"), X("item")),
};

/*
 * torch_npu's task queue (torch_npu/csrc/core/npu/NPUQueue.cpp, read from
 * source, not checked against a wheel): c10_npu::Repository::Enqueue(void *)
 * on the calling thread, Repository::Dequeue() looping on the queue's
 * consumer std::thread, one Dequeue() per item run.  Neither has the
 * item's correlation id in a register (it is in the QueueParas that
 * Enqueue's argument points to), so the key is the queue, `this`.
 */
static const struct msprof_probe_func torch_npu_queue_funcs[] = {
	QFN("_ZN7c10_npu10Repository7EnqueueEPv", ENQUEUE, FIFO, 0, X("repo"), X("params")),
	QFN("_ZN7c10_npu10Repository7DequeueEv", DEQUEUE, FIFO, 0, X("repo")),
};

static const char *const npusim_devices[] = { "/dev/null", NULL };
static const char *const davinci_devices[] = {
	"/dev/davinci[0-9]*", "/dev/davinci_manager", "/dev/devmm_svm",
	"/dev/hisi_hdc", NULL,
};
static const char *const nvidia_devices[] = {
	"/dev/nvidia[0-9]*", "/dev/nvidiactl", "/dev/nvidia-uvm", NULL,
};

const struct msprof_probe_pack msprof_probe_packs[] = {
	{ "npusim", "libnpusim.so", MSPROF_LAYER_ACL, PACK_FUNCS(acl_funcs),
	  npusim_devices, "NPUSIM_DEVICE" },
	/* On with the ACL calls they attribute. */
	{ "npusim-queue", "libnpusim.so", MSPROF_LAYER_ACL,
	  PACK_FUNCS(npusim_queue_funcs), npusim_devices, "NPUSIM_DEVICE" },
	{ "torch_npu-queue", "libtorch_npu.so", MSPROF_LAYER_ACL,
	  PACK_FUNCS(torch_npu_queue_funcs), davinci_devices, NULL },
	/* aclopCompileAndExecute lives in libacl_op_compiler. */
	{ "cann-acl", "libascendcl.so libacl_op_compiler.so", MSPROF_LAYER_ACL,
	  PACK_FUNCS(acl_funcs),
	  davinci_devices, NULL },
	{ "cann-runtime", "libruntime.so", MSPROF_LAYER_RUNTIME,
	  PACK_FUNCS(rt_funcs), davinci_devices, NULL },
	{ "hccl", "libhccl.so", MSPROF_LAYER_HCCL, PACK_FUNCS(hccl_funcs),
	  davinci_devices, NULL },
	{ "cudart", "libcudart.so", MSPROF_LAYER_CUDA_RUNTIME,
	  PACK_FUNCS(cudart_funcs), nvidia_devices, NULL },
	{ "cuda-driver", "libcuda.so", MSPROF_LAYER_CUDA_DRIVER,
	  PACK_FUNCS(cuda_driver_funcs), nvidia_devices, NULL },
	/* The marks speak to no driver: the runtime they go with does. */
	{ "mstx", "libms_tools_ext.so", MSPROF_LAYER_MSTX,
	  PACK_FUNCS(mstx_funcs), no_devices, NULL },
	{ "osrt-pthread", "libc.so libpthread.so", MSPROF_LAYER_OSRT,
	  PACK_FUNCS(osrt_funcs), no_devices, NULL },
};

const size_t msprof_nr_probe_packs =
	sizeof(msprof_probe_packs) / sizeof(msprof_probe_packs[0]);

bool msprof_probe_pack_is_library(const struct msprof_probe_pack *pack,
				  const char *path)
{
	const char *base = strrchr(path, '/'), *lib;
	size_t len, stem;

	base = base ? base + 1 : path;
	for (lib = pack->libraries; *lib; lib += len + strspn(lib + len, " ")) {
		len = strcspn(lib, " ");
		stem = strcspn(lib, ". ");
		if (strncmp(base, lib, stem))
			continue;
		if (!msprof_probe_pack_is_system(pack) || base[stem] == '.' || base[stem] == '-')
			return true;
	}
	return false;
}

bool msprof_probe_pack_is_runtime(const char *path)
{
	size_t i;

	for (i = 0; i < msprof_nr_probe_packs; i++)
		if (!msprof_probe_pack_is_system(&msprof_probe_packs[i]) &&
		    msprof_probe_pack_is_library(&msprof_probe_packs[i], path))
			return true;
	return false;
}

unsigned int msprof_probe_kind(const char *name, unsigned int layer)
{
	const struct msprof_probe_pack *pack;
	size_t i, j;

	for (i = 0; i < msprof_nr_probe_packs; i++) {
		pack = &msprof_probe_packs[i];
		for (j = 0; pack->layer == layer && j < pack->nfuncs; j++)
			if (!strcmp(pack->funcs[j].name, name))
				return pack->funcs[j].kind;
	}
	return 0;
}

const struct msprof_probe_func *msprof_probe_queue_func(const char *name,
							unsigned int layer)
{
	const struct msprof_probe_pack *pack;
	size_t i, j;

	for (i = 0; i < msprof_nr_probe_packs; i++) {
		pack = &msprof_probe_packs[i];
		for (j = 0; pack->layer == layer && j < pack->nfuncs; j++)
			if (pack->funcs[j].role != MSPROF_ROLE_NONE &&
			    !strcmp(pack->funcs[j].name, name))
				return &pack->funcs[j];
	}
	return NULL;
}
