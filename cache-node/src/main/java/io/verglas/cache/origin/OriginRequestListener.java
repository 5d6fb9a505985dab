package io.verglas.cache.origin;

/**
 * Told of each request made to an origin, before it is made: the bucket and the key it names
 * (the prefix of a listing; empty for requests that name no key, or no bucket). Called on the
 * requesting thread: it must be quick and must not block.
 */
@FunctionalInterface
public interface OriginRequestListener {
  OriginRequestListener NONE = (bucket, key) -> { };

  void request(String bucket, String key);
}
