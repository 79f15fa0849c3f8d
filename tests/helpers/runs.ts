// Which of the suite's two runs this is. `.ci/run` runs `npm test` twice: on embedded PGlite (no
// DATABASE_URL) and on a server Postgres (DATABASE_URL). A test that makes its own embedded
// database whatever the run (a CLI or a server process under a DATA_DIR of its own), or touches
// no database at all, would do the same work twice: it runs on the embedded run only.

/** True on the embedded PGlite run, where a test of the embedded database or of no database runs. */
export const EMBEDDED_RUN = !process.env.DATABASE_URL;
