/*
 * gobtf's fixture of perf.data's record types, written from the file
 * format perf documents (tools/perf/Documentation/perf.data-file-format.txt
 * and the perf_event_open ABI), for pretty-printing a perf.data with
 *   pahole --header=perf_file_header --range=data \
 *     -C 'perf_event_header(sizeof=size,type=type,type_enum=perf_event_type+perf_user_event_type)'
 * The kernel's BTF has perf_event_header and enum perf_event_type but none
 * of perf's record structs; these are named as the enumerators are, in
 * lower case, so that pahole finds each record's struct. gen.sh compiles
 * it (perf.o; BTF in perf.btf, encoded by pahole master).
 */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;

struct perf_file_section {
	__u64 offset;
	__u64 size;
};

struct perf_file_header {
	__u64 magic;
	__u64 size;
	__u64 attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	unsigned long adds_features[4];
};

struct perf_event_header {
	__u32 type;
	__u16 misc;
	__u16 size;
};

enum perf_event_type {
	PERF_RECORD_MMAP = 1,
	PERF_RECORD_LOST = 2,
	PERF_RECORD_COMM = 3,
	PERF_RECORD_EXIT = 4,
	PERF_RECORD_THROTTLE = 5,
	PERF_RECORD_UNTHROTTLE = 6,
	PERF_RECORD_FORK = 7,
	PERF_RECORD_READ = 8,
	PERF_RECORD_SAMPLE = 9,
	PERF_RECORD_MMAP2 = 10,
	PERF_RECORD_AUX = 11,
	PERF_RECORD_ITRACE_START = 12,
	PERF_RECORD_LOST_SAMPLES = 13,
	PERF_RECORD_SWITCH = 14,
	PERF_RECORD_SWITCH_CPU_WIDE = 15,
	PERF_RECORD_NAMESPACES = 16,
	PERF_RECORD_KSYMBOL = 17,
	PERF_RECORD_BPF_EVENT = 18,
	PERF_RECORD_CGROUP = 19,
	PERF_RECORD_TEXT_POKE = 20,
	PERF_RECORD_AUX_OUTPUT_HW_ID = 21,
	PERF_RECORD_MAX,
};

enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_EVENT_TYPE = 65,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_HEADER_MAX,
};

struct perf_record_mmap {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;
	char filename[4096];
};

struct perf_record_mmap2 {
	struct perf_event_header header;
	__u32 pid, tid;
	__u64 start;
	__u64 len;
	__u64 pgoff;
	union {
		struct {
			__u32 maj;
			__u32 min;
			__u64 ino;
			__u64 ino_generation;
		};
		struct {
			__u8 build_id_size;
			__u8 __reserved_1;
			__u16 __reserved_2;
			__u8 build_id[20];
		};
	};
	__u32 prot;
	__u32 flags;
	char filename[4096];
};

struct perf_record_comm {
	struct perf_event_header header;
	__u32 pid, tid;
	char comm[16];
};

struct perf_record_fork {
	struct perf_event_header header;
	__u32 pid, ppid;
	__u32 tid, ptid;
	__u64 time;
};

struct perf_record_lost {
	struct perf_event_header header;
	__u64 id;
	__u64 lost;
};

struct perf_record_sample {
	struct perf_event_header header;
	__u64 array[];
};

struct perf_record_ksymbol {
	struct perf_event_header header;
	__u64 addr;
	__u32 len;
	__u16 ksym_type;
	__u16 flags;
	char name[256];
};

struct perf_record_bpf_event {
	struct perf_event_header header;
	__u16 type;
	__u16 flags;
	__u32 id;
	__u8 tag[8];
};

struct perf_record_finished_round {
	struct perf_event_header header;
};

struct perf_record_finished_init {
	struct perf_event_header header;
};

struct perf_record_time_conv {
	struct perf_event_header header;
	__u64 time_shift;
	__u64 time_mult;
	__u64 time_zero;
	__u64 time_cycles;
	__u64 time_mask;
	__u8 cap_user_time_zero;
	__u8 cap_user_time_short;
	__u8 reserved[6];
};

struct perf_record_thread_map_entry {
	__u64 pid;
	char comm[16];
};

struct perf_record_thread_map {
	struct perf_event_header header;
	__u64 nr;
	struct perf_record_thread_map_entry entries[];
};

struct perf_record_header_feature {
	struct perf_event_header header;
	__u64 feat_id;
	char data[];
};

struct perf_record_id_index {
	struct perf_event_header header;
	__u64 nr;
	__u64 entries[];
};
