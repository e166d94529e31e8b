-- The clock event ids are made from (src/content/changes/change-log.ts, APPEND_SQL): its last value is the
-- last id's tick (milliseconds × 2^20 + a counter). A sequence rather than a row, because it is read
-- and advanced under the append lock by a statement whose snapshot was taken before that lock: a
-- sequence's value is never a snapshot's, so each append sees the one before it, whichever process made it.
CREATE SEQUENCE "EventIdClock" AS BIGINT MINVALUE 0 START WITH 0;
