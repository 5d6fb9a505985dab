package io.verglas.cache.origin.azure;

import com.azure.core.util.FluxUtil;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ObjectBody;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Request bodies for the SDK. A body may be spooled to disk, so it is read on Reactor's
 * bounded-elastic threads, never on the HTTP client's event loop.
 */
final class AzureBodies {
  private static final int CHUNK = 64 * 1024;

  private AzureBodies() {}

  /** The body's bytes, opened when the request is sent and closed when it ends. */
  static Flux<ByteBuffer> flux(ObjectBody body) {
    return Flux.using(body::openStream, in -> FluxUtil.toFluxByteBuffer(in, CHUNK), AzureBodies::closeQuietly)
        .subscribeOn(Schedulers.boundedElastic());
  }

  /** The body's MD5, read off the event loops. */
  static Mono<byte[]> md5(ObjectBody body) {
    return Mono.fromCallable(() -> {
      MessageDigest md5 = ETags.newMd5();
      try (InputStream in = new DigestInputStream(body.openStream(), md5)) {
        in.transferTo(java.io.OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the body of a part: " + e.getMessage(), e);
      }
      return md5.digest();
    }).subscribeOn(Schedulers.boundedElastic());
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // the request is over either way
    }
  }
}
