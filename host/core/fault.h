/* Device-fault injection switch CATENA_FAULT (host/fault.c documents the names). Not installed. */
#ifndef CTN_HOST_FAULT_H
#define CTN_HOST_FAULT_H

enum {
    CTN_FAULT_NONE,
    CTN_FAULT_NO_PLATFORM,
    CTN_FAULT_OUT_OF_MEMORY,
    CTN_FAULT_BUILD,
    CTN_FAULT_ENQUEUE,
    CTN_FAULT_DEVICE_LOST,
    CTN_FAULT_OUT_OF_RESOURCES,
    CTN_FAULT_COUNT
};

typedef struct ctn_fault {
    int kind;  /* CTN_FAULT_* */
    long step; /* step (from 1) at which a step fault fires; 0: at backend creation */
} ctn_fault;

/* Parses $CATENA_FAULT (and the legacy CATENA_TEST_BAD_BUILD_OPTION=1); the only reader of either. */
ctn_fault ctn__fault_from_env(void);
const char *ctn__fault_name(int kind);

#endif /* CTN_HOST_FAULT_H */
