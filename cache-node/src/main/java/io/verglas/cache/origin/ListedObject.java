package io.verglas.cache.origin;

import java.time.Instant;

/** One object in a listing. The ETag is quoted. */
public record ListedObject(String key, long size, Instant lastModified, String etag) {}
