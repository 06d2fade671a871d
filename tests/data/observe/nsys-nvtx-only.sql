-- An export of `nsys profile --trace=nvtx,osrt` (no CUDA trace): NVTX ranges and OS runtime
-- calls but no CUPTI_ACTIVITY_KIND_* table. Columns as in NVIDIA's "SQLite Schema Reference".
CREATE TABLE StringIds (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    value                       TEXT      NOT NULL
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
    domainId                    INTEGER
);
CREATE TABLE OSRT_API (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    eventClass                  INTEGER   NOT NULL,
    globalTid                   INTEGER,
    correlationId               INTEGER,
    nameId                      INTEGER   NOT NULL,
    returnValue                 INTEGER   NOT NULL,
    nestingLevel                INTEGER,
    callchainId                 INTEGER
);
INSERT INTO StringIds VALUES (1, 'pthread_cond_wait');
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (0, 1000000, 59, 'data loading', 281475010265088);
INSERT INTO OSRT_API VALUES (1000, 900000, 27, 281475010265088, 0, 1, 0, 0, NULL);
