package io.verglas.cache.origin;

import java.time.Instant;

public record BucketInfo(String name, Instant creationDate) {}
