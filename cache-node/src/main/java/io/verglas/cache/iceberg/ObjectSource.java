package io.verglas.cache.iceberg;

/**
 * Whole-object reads behind {@link ReadOnlyFileIO}: table metadata, manifest lists and
 * manifests are small and parsed from memory. Failures are unchecked (Iceberg's parsers call
 * through interfaces that declare no checked exceptions).
 */
public interface ObjectSource {
  /** The object's length in bytes. */
  long length(String location);

  /** All bytes of the object. */
  byte[] read(String location);
}
