/**
 * The maintenance job: drives every table toward its target layout (compaction of delta files
 * and deletion vectors into base files, file sizing, snapshot expiry, orphan removal).
 *
 * <p>Roles, one package each: {@code policy} (the per-table policy from table properties),
 * {@code plan} (a pure planner over a snapshot's file list), {@code compact} (the executor
 * committing {@code replace} snapshots), {@code events} (catalog events for every commit).
 */
package io.verglas.maintenance;
