package io.verglas.cache.s3;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.function.Supplier;

/** The pipeline of a connection: HTTP/1.1 codec, idle timeout, the S3 request handler (which hands /catalog and /v1 to their service endpoints). */
final class S3ServerInitializer extends ChannelInitializer<SocketChannel> {
  private static final int IDLE_SECONDS = 300;
  static final int MAX_INITIAL_LINE_LENGTH = 16 * 1024;
  static final int MAX_HEADER_SIZE = 64 * 1024;

  private final S3ServerConfig config;
  private final SigV4Verifier verifier;
  private final S3Dispatcher dispatcher;
  private final Supplier<String> requestIds;
  private final Map<String, ServiceEndpoint> services;

  S3ServerInitializer(S3ServerConfig config, SigV4Verifier verifier, S3Dispatcher dispatcher,
      Supplier<String> requestIds, Map<String, ServiceEndpoint> services) {
    this.services = services;
    this.config = config;
    this.verifier = verifier;
    this.dispatcher = dispatcher;
    this.requestIds = requestIds;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    HttpDecoderConfig decoder = new HttpDecoderConfig()
        .setMaxInitialLineLength(MAX_INITIAL_LINE_LENGTH)
        .setMaxHeaderSize(MAX_HEADER_SIZE)
        .setMaxChunkSize(256 * 1024);
    ch.pipeline()
        .addLast("http", new HttpServerCodec(decoder))
        .addLast("idle", new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS))
        .addLast("s3", new S3RequestHandler(config, verifier, dispatcher, requestIds, services));
  }
}
