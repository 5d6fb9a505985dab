/**
 * The maintenance job: a Flink reconciliation loop that drives every table toward its target
 * layout (compaction of delta files and deletion vectors into base files, file sizing, manifest
 * rewrites, snapshot expiry, orphan removal), triggered by catalog events.
 *
 * <p>Not built yet: this module holds no code until the maintenance issue lands. Until then
 * tables keep every delta file the materializer writes; any engine's {@code rewrite_data_files}
 * may compact them.
 */
package io.verglas.maintenance;
