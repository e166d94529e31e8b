-- A post update that left every post list as it was (src/cache/answer-dependencies.ts): it changed none
-- of what decides which lists a post is on and where (status, publication date, featured, category,
-- tags). Cached lists that do not show the post survive it. Every other event (and every row written
-- before this column) counts as one that may have changed them.
ALTER TABLE "Event" ADD COLUMN "keepsListings" BOOLEAN NOT NULL DEFAULT false;
