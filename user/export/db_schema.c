// SPDX-License-Identifier: MIT
/*
 * msprof's tables as its SQLite export has them (MP csrc/application/
 * database/msprof_db.cpp): their names, columns, order and types, and the
 * ENUM tables' rows (db_constant.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_parts.h"

#define ENUM_COLS "id INTEGER PRIMARY KEY, name TEXT"

static const struct table {
	const char *name;
	const char *cols;
} tables[] = {
	[T_STRING_IDS] = { "STRING_IDS", "id INTEGER PRIMARY KEY, value TEXT" },
	[T_META_DATA] = { "META_DATA", "name TEXT, value TEXT" },
	[T_SESSION_TIME_INFO] = { "SESSION_TIME_INFO", "startTimeNs INTEGER, endTimeNs INTEGER" },
	[T_NPU_INFO] = { "NPU_INFO", "id INTEGER, name TEXT" },
	[T_RANK_DEVICE_MAP] = { "RANK_DEVICE_MAP", "rankId INTEGER, deviceId INTEGER" },
	[T_HOST_INFO] = { "HOST_INFO", "hostUid TEXT, hostName TEXT" },
	[T_TASK] = { "TASK", "startNs INTEGER, endNs INTEGER, deviceId INTEGER, "
		"connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER, "
		"taskType INTEGER, contextId INTEGER, streamId INTEGER, "
		"taskId INTEGER, modelId INTEGER" },
	[T_COMPUTE_TASK_INFO] = { "COMPUTE_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER, "
		"mixBlockNum INTEGER, taskType INTEGER, opType INTEGER, "
		"inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, "
		"outputFormats INTEGER, outputDataTypes INTEGER, "
		"outputShapes INTEGER, attrInfo INTEGER, opState INTEGER, "
		"hf32Eligible INTEGER, gridDim INTEGER, blockDim INTEGER" },
	[T_COMM_SCHEDULE] = { "COMMUNICATION_SCHEDULE_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER PRIMARY KEY, taskType INTEGER, opType INTEGER" },
	[T_COMM_TASK] = { "COMMUNICATION_TASK_INFO", "name INTEGER, "
		"globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
		"groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, "
		"srcRank INTEGER, dstRank INTEGER, transportType INTEGER, "
		"size INTEGER, dataType INTEGER, linkType INTEGER, opId INTEGER, "
		"isMaster INTEGER, bandwidth NUMERIC" },
	[T_COMMUNICATION_OP] = { "COMMUNICATION_OP", "opName INTEGER, "
		"startNs INTEGER, endNs INTEGER, connectionId INTEGER, "
		"groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, "
		"retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, "
		"opType INTEGER, deviceId INTEGER, rankSize INTEGER" },
	[T_CANN_API] = { "CANN_API", "startNs INTEGER, endNs INTEGER, "
		"type INTEGER, globalTid INTEGER, "
		"connectionId INTEGER PRIMARY KEY, name INTEGER, "
		"callchainId INTEGER" },
	[T_TASK_PMU_INFO] = { "TASK_PMU_INFO",
		"globalTaskId INTEGER, name INTEGER, value NUMERIC" },
	[T_MSTX_EVENTS] = { "MSTX_EVENTS", "startNs INTEGER, endNs INTEGER, "
		"eventType INTEGER, rangeId INTEGER, category INTEGER, "
		"message INTEGER, globalTid INTEGER, endGlobalTid INTEGER, "
		"domainId INTEGER, connectionId INTEGER" },
	[T_MEMCPY_INFO] = { "MEMCPY_INFO", "globalTaskId NUMERIC, "
		"size NUMERIC, memcpyOperation NUMERIC" },
	[T_OSRT_API] = { "OSRT_API", "name NUMERIC, globalTid NUMERIC, "
		"startNs NUMERIC, endNs NUMERIC" },
	[T_OVERLAP_ANALYSIS] = { "OVERLAP_ANALYSIS", "id INTEGER PRIMARY KEY, "
		"deviceId INTEGER, startNs NUMERIC, endNs NUMERIC, type INTEGER" },
	[T_PYTORCH_CALLCHAINS] = { "PYTORCH_CALLCHAINS",
		"id INTEGER, stack INTEGER, stackDepth INTEGER" },
	[T_CPU_USAGE] = { "CPU_USAGE",
		"timestampNs NUMERIC, cpuId NUMERIC, usage NUMERIC" },
	[T_HOST_MEM_USAGE] = { "HOST_MEM_USAGE", "timestampNs NUMERIC, usage NUMERIC" },
	[T_HOST_DISK_USAGE] = { "HOST_DISK_USAGE", "timestampNs NUMERIC, "
		"readRate NUMERIC, writeRate NUMERIC, usage NUMERIC" },
	[T_HOST_NETWORK_USAGE] = { "HOST_NETWORK_USAGE",
		"timestampNs NUMERIC, usage NUMERIC, speed NUMERIC" },
	[T_THREAD_STATE] = { "THREAD_STATE", "startNs INTEGER, endNs INTEGER, "
		"globalTid INTEGER, state INTEGER, syscall INTEGER, "
		"wakerGlobalTid INTEGER, waker INTEGER, connectionId INTEGER, "
		"cpu INTEGER, flags INTEGER" },
	{ "ENUM_API_TYPE", ENUM_COLS },
	{ "ENUM_MODULE", ENUM_COLS },
	{ "ENUM_HCCL_DATA_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_LINK_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_TRANSPORT_TYPE", ENUM_COLS },
	{ "ENUM_HCCL_RDMA_TYPE", ENUM_COLS },
	{ "ENUM_MSTX_EVENT_TYPE", ENUM_COLS },
	{ "ENUM_MEMCPY_OPERATION", ENUM_COLS },
	{ "ENUM_OVERLAP_ANALYSIS_TYPE", ENUM_COLS },
	{ "ENUM_THREAD_STATE", ENUM_COLS },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

_Static_assert(NTABLES == T_NTABLES, "a table without its number");

/*
 * The ENUM tables' rows, in table order, as "<id>:<name>" separated by
 * '|' (names hold blanks and slashes); msprof's values (db_constant.h).
 */
static const char *const enums[NTABLES - T_ENUM_FIRST] = {
	"20000:acl|15000:model|10000:node|5500:communication|5000:runtime",
	"0:SLOG|1:IDEDD|2:SCC|3:HCCL|4:FMK|5:CCU|6:DVPP|7:RUNTIME|8:CCE|9:HDC|"
	"10:DRV|11:NET|22:DEVMM|23:KERNEL|24:LIBMEDIA|25:CCECPU|27:ROS|28:HCCP|"
	"29:ROCE|30:TEFUSION|31:PROFILING|32:DP|33:APP|34:TS|35:TSDUMP|"
	"36:AICPU|37:LP|38:TDT|39:FE|40:MD|41:MB|42:ME|43:IMU|44:IMP|45:GE|"
	"47:CAMERA|48:ASCENDCL|49:TEEOS|50:ISP|51:SIS|52:HSM|53:DSS|"
	"54:PROCMGR|55:BBOX|56:AIVECTOR|57:TBE|58:FV|60:TUNE|61:HSS|62:FFTS|"
	"63:OP|64:UDF|65:HICAID|66:TSYNC|67:AUDIO|68:TPRT|69:ASCENDCKERNEL|"
	"70:ASYS|71:ATRACE|72:RTC|73:SYSMONITOR|74:AMP|75:ADETECT|76:MBUFF|"
	"77:CUSTOM",
	"0:INT8|1:INT16|2:INT32|3:FP16|4:FP32|5:INT64|6:UINT64|7:UINT8|"
	"8:UINT16|9:UINT32|10:FP64|11:BFP16|12:INT128|14:HIF8|15:FP8E4M3|"
	"16:FP8E5M2|17:FP8E8M0|255:RESERVED|65534:N/A|65535:INVALID_TYPE",
	"0:ON_CHIP|1:HCCS|2:PCIE|3:ROCE|4:SIO|5:HCCS_SW|6:STANDARD_ROCE|7:UB|"
	"8:UBoE|255:RESERVED|65534:N/A|65535:INVALID_TYPE",
	"0:SDMA|1:RDMA|2:LOCAL|3:UB|4:ROCE|255:RESERVED|65534:N/A|"
	"65535:INVALID_TYPE",
	"0:RDMA_SEND_NOTIFY|1:RDMA_SEND_PAYLOAD|255:RESERVED|65534:N/A|"
	"65535:INVALID_TYPE",
	"0:marker|1:push/pop|2:start/end|3:marker_ex",
	"0:host to host|1:host to device|2:device to host|3:device to device|"
	"4:managed memory|5:addr device to device|6:host to device ex|"
	"7:device to host ex|65535:other",
	"0:COMPUTE|1:COMMUNICATION|2:COMM_NOT_OVERLAP_COMP|3:FREE|65535:RESERVE",
	/* ours, enum tstate's order */
	"0:Running|1:Runnable|2:Sleeping|3:Uninterruptible|4:Stopped|5:Unknown",
};

int db_create_tables(struct dbw *w)
{
	char sql[1024];
	size_t i, n;
	int err;

	for (i = 0; i < NTABLES; i++) {
		const char *c = tables[i].cols;

		snprintf(sql, sizeof(sql), "CREATE TABLE %s (%s)",
			 tables[i].name, c);
		err = db_exec(w, sql);
		if (err)
			return err;
		for (n = 1; *c; c++)
			n += *c == ',';
		err = db_prepare_insert(w, (int)i, tables[i].name, (int)n);
		if (err)
			return err;
	}
	return 0;
}

int db_write_enums(struct dbw *w)
{
	char name[64];
	size_t i;
	int err;

	for (i = 0; i < NTABLES - T_ENUM_FIRST; i++) {
		const char *at = enums[i];

		while (*at) {
			char *end;
			long id = strtol(at, &end, 10);
			size_t n = strcspn(end + 1, "|");

			snprintf(name, sizeof(name), "%.*s", (int)n, end + 1);
			err = db_row2(w, (int)(T_ENUM_FIRST + i), id, NULL, name);
			if (err)
				return err;
			at = end + 1 + n + (end[1 + n] == '|');
		}
	}
	return 0;
}
