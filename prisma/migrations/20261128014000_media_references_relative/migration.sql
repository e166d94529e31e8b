-- Media references that name the port of the process that wrote them (issue 54, item 9). Without
-- PUBLIC_URL an import stored this service's own files as http://localhost:<its PORT>/media/<key>, and
-- the importing CLI's port (3000 unless set) is not the server's. Such references are now stored
-- relative, /media/<key>, and made absolute by the process that serves them (src/media/media-references.ts);
-- the ones written before are turned relative here. Only URLs on localhost whose path is a stored file's
-- (a storage key's shape: src/media/media-key.ts) are touched.
UPDATE "Post"
SET "content" = regexp_replace("content", 'http://localhost:[0-9]+(/media/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.[a-z0-9]{1,5})', '\1', 'g')
WHERE "content" ~ 'http://localhost:[0-9]+/media/';

UPDATE "Post"
SET "coverImage" = regexp_replace("coverImage", '^http://localhost:[0-9]+(/media/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.[a-z0-9]{1,5})$', '\1')
WHERE "coverImage" ~ '^http://localhost:[0-9]+/media/';

UPDATE "Author"
SET "image" = regexp_replace("image", '^http://localhost:[0-9]+(/media/[A-Za-z0-9_-]{1,64}/[0-9a-f]{32}\.[a-z0-9]{1,5})$', '\1')
WHERE "image" ~ '^http://localhost:[0-9]+/media/';
