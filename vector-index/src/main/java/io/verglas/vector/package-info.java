/**
 * Vector search: Vamana (DiskANN) graphs over a float-vector column, built with JVector, stored
 * as Puffin blobs of type {@code verglas-vamana-v1} (plus an ordinal map) and published as the
 * statistics file of exactly the snapshot they reflect.
 *
 * <p>Entry points: {@link io.verglas.vector.IndexPublisher} builds and publishes the index of a
 * snapshot, {@link io.verglas.vector.CommitIndexer} does so from catalog events,
 * {@link io.verglas.vector.SnapshotIndexes} finds the index of one snapshot and
 * {@link io.verglas.vector.VectorSearcher} answers searches (index or exact, and says which).
 * See docs/vector-index.md.
 */
package io.verglas.vector;
