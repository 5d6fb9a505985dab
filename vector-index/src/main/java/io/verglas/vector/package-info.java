/**
 * Vector search: Vamana (DiskANN) graphs over a float-vector column, stored as Puffin blobs of
 * type {@code verglas-vamana-v1} and published as the statistics file of exactly the snapshot
 * they reflect.
 *
 * <p>Not built yet: this module holds no code until the vector-index issue lands.
 */
package io.verglas.vector;
