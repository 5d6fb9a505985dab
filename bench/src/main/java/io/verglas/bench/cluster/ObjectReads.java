package io.verglas.bench.cluster;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.WriteOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Random;

/**
 * The benchmark's objects (one block each, random bytes, written to the origin's store up front)
 * and their reads: an anonymous GET through a node, checked against the object's length.
 */
final class ObjectReads {
  private final String bucket;
  private final int bytes;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  private ObjectReads(String bucket, int bytes) {
    this.bucket = bucket;
    this.bytes = bytes;
  }

  static ObjectReads create(LocalDirectoryOrigin store, String bucket, int count, int bytes) {
    store.createBucket(bucket).join();
    Random random = new Random(3);
    byte[] body = new byte[bytes];
    for (int i = 0; i < count; i++) {
      random.nextBytes(body);
      store.put(bucket, key(i), ObjectBody.ofBytes(body.clone()), WriteOptions.DEFAULT).join();
    }
    return new ObjectReads(bucket, bytes);
  }

  static String key(int object) {
    return String.format("objects/%06d.bin", object);
  }

  void read(URI node, int object) throws IOException, InterruptedException {
    HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(
        URI.create(node + "/" + bucket + "/" + key(object))).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    if (response.statusCode() != 200 || response.body().length != bytes) {
      throw new IOException("Cannot read " + key(object) + " through " + node
          + ": HTTP " + response.statusCode() + ", " + response.body().length + " bytes");
    }
  }
}
