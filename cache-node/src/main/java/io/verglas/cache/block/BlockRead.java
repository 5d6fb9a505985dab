package io.verglas.cache.block;

/**
 * A block handed to a reader. {@code data} is shared with the cache and other readers: read it,
 * never write it. {@code fromCache} tells whether a tier held it (true) or it was loaded or joined
 * an in-flight load (false).
 */
public record BlockRead(byte[] data, boolean fromCache) {}
