package io.verglas.cache;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a purge by prefix removed.
 *
 * @param bucket the bucket purged
 * @param prefix the key prefix purged ("" for the whole bucket)
 * @param blocks cached blocks removed from DRAM and NVMe (a block held by both counts twice)
 * @param metadataEntries metadata store entries removed (objects and footers)
 * @param etags resolved ETags forgotten
 */
public record PurgeResult(String bucket, String prefix, long blocks, long metadataEntries, long etags) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render a purge result as JSON", e);
    }
  }
}
