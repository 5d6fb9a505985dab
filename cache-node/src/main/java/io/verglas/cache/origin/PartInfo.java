package io.verglas.cache.origin;

import java.time.Instant;

/** An uploaded part of a multipart upload in progress. The ETag is quoted. */
public record PartInfo(int partNumber, String etag, long size, Instant lastModified) {}
