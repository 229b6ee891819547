-- Objects are compressed with lz4 instead of pglz where the server has it (PostgreSQL 14+, built with lz4, as the
-- distributions' packages and the official images are): a 4 KB pod compresses and decompresses several times faster,
-- so writes and page reads cost the server less, for ~25 % more space. It applies to values written from now on; rows
-- already stored keep pglz until they are next written, and both read alike, so nothing is rewritten here. A server
-- without lz4 keeps pglz.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 140000 THEN
    EXECUTE 'ALTER TABLE "resources" ALTER COLUMN "object" SET COMPRESSION lz4';
    EXECUTE 'ALTER TABLE "changes" ALTER COLUMN "object" SET COMPRESSION lz4';
  END IF;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
