-- A two-GPU data-parallel training step as `nsys profile --trace=cuda,nvtx --cuda-memory-usage=true`
-- captures it and `nsys export --type sqlite` writes it: the tables rightsize reads, with the
-- columns of NVIDIA's "SQLite Schema Reference" (Nsight Systems user guide), cut down to a few
-- rows with round timestamps (ns) so that the expected figures can be checked by hand. Kernel
-- names are real ones (tests/data/observe/SOURCES.md). Build it with make_nsys_fixture.sh.
--
-- Device 0: H2D copy 1000-3000, nvjet GEMM 3000-8000, flash attention 8000-12000, vLLM's custom
--   all-reduce 12000-14000 on stream 7 and an NCCL all-reduce 11000-15000 on stream 13 (busy
--   1000-15000 = 14000), a memset 20000-20500, an RMSNorm 30000-32000: busy 16500.
-- Device 1: GEMM 3000-9000, NCCL all-reduce 12000-15000, D2H copy 40000-40400: busy 9400.
-- Host: NVTX "data loading" 0-1000 and a registered "DataLoader.__next__" 22000-29000; CUDA API
--   calls up to cudaStreamSynchronize ending at 50000, so the window is 0-50000.
CREATE TABLE StringIds (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    value                       TEXT      NOT NULL
);
CREATE TABLE META_DATA_EXPORT (
    name                        TEXT      NOT NULL,
    value                       TEXT
);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,
    utcTime                     TEXT,
    localTime                   TEXT
);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,
    id                          INTEGER   NOT NULL,
    name                        TEXT,
    busLocation                 TEXT,
    isDiscrete                  INTEGER,
    l2CacheSize                 INTEGER,
    totalMemory                 INTEGER,
    memoryBandwidth             INTEGER,
    clockRate                   INTEGER,
    smCount                     INTEGER,
    pwGpuId                     INTEGER,
    uuid                        TEXT,
    luid                        INTEGER,
    chipName                    TEXT,
    cuDevice                    INTEGER,
    ctxswDevPath                TEXT,
    ctrlDevPath                 TEXT,
    revision                    INTEGER,
    nodeMask                    INTEGER,
    constantMemory              INTEGER,
    maxIPC                      INTEGER,
    maxRegistersPerBlock        INTEGER,
    maxShmemPerBlock            INTEGER,
    maxShmemPerBlockOptin       INTEGER,
    maxShmemPerSm               INTEGER,
    maxRegistersPerSm           INTEGER,
    threadsPerWarp              INTEGER,
    asyncEngines                INTEGER,
    maxWarpsPerSm               INTEGER,
    maxBlocksPerSm              INTEGER,
    maxThreadsPerBlock          INTEGER,
    maxBlockDimX                INTEGER,
    maxBlockDimY                INTEGER,
    maxBlockDimZ                INTEGER,
    maxGridDimX                 INTEGER,
    maxGridDimY                 INTEGER,
    maxGridDimZ                 INTEGER,
    computeMajor                INTEGER,
    computeMinor                INTEGER,
    smMajor                     INTEGER,
    smMinor                     INTEGER
);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    bytes                       INTEGER   NOT NULL,
    copyKind                    INTEGER   NOT NULL,
    deprecatedSrcId             INTEGER,
    srcKind                     INTEGER,
    dstKind                     INTEGER,
    srcDeviceId                 INTEGER,
    srcContextId                INTEGER,
    dstDeviceId                 INTEGER,
    dstContextId                INTEGER,
    migrationCause              INTEGER,
    graphNodeId                 INTEGER,
    virtualAddress              INTEGER
);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    value                       INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    graphNodeId                 INTEGER,
    memKind                     INTEGER
);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    demangledName               INTEGER   NOT NULL,
    shortName                   INTEGER   NOT NULL,
    mangledName                 INTEGER,
    launchType                  INTEGER,
    cacheConfig                 INTEGER,
    registersPerThread          INTEGER   NOT NULL,
    gridX                       INTEGER   NOT NULL,
    gridY                       INTEGER   NOT NULL,
    gridZ                       INTEGER   NOT NULL,
    blockX                      INTEGER   NOT NULL,
    blockY                      INTEGER   NOT NULL,
    blockZ                      INTEGER   NOT NULL,
    staticSharedMemory          INTEGER   NOT NULL,
    dynamicSharedMemory         INTEGER   NOT NULL,
    localMemoryPerThread        INTEGER   NOT NULL,
    localMemoryTotal            INTEGER   NOT NULL,
    gridId                      INTEGER   NOT NULL,
    sharedMemoryExecuted        INTEGER,
    graphNodeId                 INTEGER,
    sharedMemoryLimitConfig     INTEGER
);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    eventClass                  INTEGER   NOT NULL,
    globalTid                   INTEGER,
    correlationId               INTEGER,
    nameId                      INTEGER   NOT NULL,
    returnValue                 INTEGER   NOT NULL,
    callchainId                 INTEGER
);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (
    start                       INTEGER   NOT NULL,
    globalPid                   INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    address                     INTEGER   NOT NULL,
    pc                          INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    memKind                     INTEGER   NOT NULL,
    memoryOperationType         INTEGER   NOT NULL,
    name                        TEXT,
    correlationId               INTEGER,
    localMemoryPoolAddress      INTEGER,
    localMemoryPoolReleaseThreshold   INTEGER,
    localMemoryPoolSize         INTEGER,
    localMemoryPoolUtilizedSize   INTEGER,
    importedMemoryPoolAddress   INTEGER,
    importedMemoryPoolProcessId   INTEGER
);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,
    end                         INTEGER,
    eventType                   INTEGER   NOT NULL,
    rangeId                     INTEGER,
    category                    INTEGER,
    color                       INTEGER,
    text                        TEXT,
    globalTid                   INTEGER,
    endGlobalTid                INTEGER,
    textId                      INTEGER,
    domainId                    INTEGER,
    uint64Value                 INTEGER,
    int64Value                  INTEGER,
    doubleValue                 REAL,
    uint32Value                 INTEGER,
    int32Value                  INTEGER,
    floatValue                  REAL,
    jsonTextId                  INTEGER,
    jsonText                    TEXT
);

INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1718000000000000000, '2024-06-10 06:13:20', '2024-06-10 08:13:20');

INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES (2, 'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES (3, 'cudaStreamSynchronize_v3020');
INSERT INTO StringIds VALUES (10, 'nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT');
INSERT INTO StringIds VALUES (11, 'void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)32, (int)4, (bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)128, (int)128, (int)32, (int)4, cutlass::bfloat16_t>>, (bool)0, (bool)0, (bool)0, (bool)0, (bool)0, (bool)1, (bool)0, (bool)0>(pytorch_flash::Flash_fwd_params)');
INSERT INTO StringIds VALUES (12, 'flash_fwd_kernel');
INSERT INTO StringIds VALUES (13, 'void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)');
INSERT INTO StringIds VALUES (14, 'cross_device_reduce_1stage');
INSERT INTO StringIds VALUES (15, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)');
INSERT INTO StringIds VALUES (16, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL');
INSERT INTO StringIds VALUES (17, 'void vllm::rms_norm_kernel<c10::BFloat16, 8, 2, true>(c10::BFloat16*, c10::BFloat16 const*, long, long, long, long, long, c10::BFloat16 const*, long, float, int, int)');
INSERT INTO StringIds VALUES (18, 'rms_norm_kernel');
INSERT INTO StringIds VALUES (20, 'DataLoader.__next__');

INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, smCount, uuid, chipName, cuDevice, computeMajor, computeMinor)
  VALUES (0, 0, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 1, 85520809984, 132, 'GPU-6a2c7e0b-3f0e-44d1-9a5e-1b2f0c9d8e01', 'GH100', 0, 9, 0);
INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, smCount, uuid, chipName, cuDevice, computeMajor, computeMinor)
  VALUES (0, 1, 'NVIDIA H100 80GB HBM3', '0000:2a:00.0', 1, 85520809984, 132, 'GPU-0c8d1e55-7b21-4f6a-8c3d-2e4f5a6b7c02', 'GH100', 1, 9, 0);

INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device');

-- copyKind 1: host to device (1 MiB); copyKind 2: device to host
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind)
  VALUES (1000, 3000, 0, 1, 7, 101, 72057602627862528, 1048576, 1, 1, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind)
  VALUES (40000, 40400, 1, 1, 7, 201, 72057602644639744, 4096, 2, 2, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid, value, bytes, memKind)
  VALUES (20000, 20500, 0, 1, 7, 107, 72057602627862528, 0, 8388608, 2);

INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (3000, 8000, 0, 1, 7, 102, 72057602627862528, 10, 10, 168, 132, 1, 1, 384, 1, 1, 0, 232448, 0, 0, 1001);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (8000, 12000, 0, 1, 7, 103, 72057602627862528, 11, 12, 255, 8, 32, 4, 128, 1, 1, 0, 49152, 0, 0, 1002);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (12000, 14000, 0, 1, 7, 104, 72057602627862528, 13, 14, 48, 36, 1, 1, 512, 1, 1, 0, 0, 0, 0, 1003);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (11000, 15000, 0, 1, 13, 105, 72057602627862528, 15, 16, 96, 2, 1, 1, 640, 1, 1, 0, 0, 0, 0, 1004);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (30000, 32000, 0, 1, 7, 108, 72057602627862528, 17, 18, 32, 2048, 1, 1, 256, 1, 1, 0, 0, 0, 0, 1005);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (3000, 9000, 1, 1, 7, 202, 72057602644639744, 10, 10, 168, 132, 1, 1, 384, 1, 1, 0, 232448, 0, 0, 2001);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)
  VALUES (12000, 15000, 1, 1, 13, 203, 72057602644639744, 15, 16, 96, 2, 1, 1, 640, 1, 1, 0, 0, 0, 0, 2002);

INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 900, 0, 281475010265088, 102, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 1000, 0, 281475010265088, 101, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (45000, 50000, 0, 281475010265088, 109, 3, 0, NULL);

-- eventType 59: NvtxPushPopRange; 34: NvtxMark (no end)
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (0, 1000, 59, 'data loading', 281475010265088);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (3000, 15000, 59, 'forward', 281475010265088);
INSERT INTO NVTX_EVENTS (start, end, eventType, textId, globalTid) VALUES (22000, 29000, 59, 20, 281475010265088);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (23000, NULL, 34, 'DataLoader worker timeout', 281475010265088);

-- memKind 2: device; memoryOperationType 0: allocation, 1: deallocation. Device 0 peaks at 3 GiB.
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (100, 72057602627862528, 0, 1, 139637976727552, 0, 2147483648, 2, 0);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (200, 72057602627862528, 0, 1, 139640124211200, 0, 1073741824, 2, 0);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (300, 72057602627862528, 0, 1, 139640124211200, 0, 1073741824, 2, 1);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (400, 72057602627862528, 0, 1, 139641197953024, 0, 536870912, 2, 0);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (150, 72057602644639744, 1, 1, 139637976727552, 0, 2147483648, 2, 0);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType)
  VALUES (160, 72057602644639744, 1, 1, 139637976000000, 0, 1048576, 1, 0);
