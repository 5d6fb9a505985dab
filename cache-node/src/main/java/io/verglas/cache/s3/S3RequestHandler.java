package io.verglas.cache.s3;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's request cycle: parse and authenticate on the request head (answering errors
 * and {@code 100 Continue} before any body is read), receive the body, run the operation, write
 * the response.
 *
 * <p>Design: requests are handled one at a time per connection. Requests a client pipelines
 * while an operation runs are queued and replayed afterwards, so responses keep request order;
 * the first such message also pauses reading ({@code autoRead=false}) until the answer is out,
 * which bounds what a client can queue. (Reading is not paused for every request: a cache hit
 * completes before its read returns.) An error found before the body is
 * read is answered at once; if a body was announced the connection is closed after the answer
 * instead of reading an unwanted upload. A streamed response that fails half-way closes the
 * connection, which the client sees as a truncated body. All state is confined to the event loop.
 */
final class S3RequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(S3RequestHandler.class);
  static final long MAX_XML_BODY = 8L * 1024 * 1024;
  private static final int MAX_PIPELINED = 64;
  private static final long MAX_DISCARD = 64L * 1024 * 1024;
  /** Service requests carry a bearer token, not a signature: their bodies are plain. */
  private static final Authentication SERVICE_AUTH =
      new Authentication(null, PayloadMode.UNSIGNED, null, null);

  private enum State { IDLE, RECEIVING, DISCARDING, PROCESSING }

  private final S3ServerConfig config;
  private final SigV4Verifier verifier;
  private final S3Dispatcher dispatcher;
  private final Supplier<String> requestIds;
  private final Map<String, ServiceEndpoint> services;
  private final Clock clock;
  private final ArrayDeque<Object> pipelined = new ArrayDeque<>();

  private State state = State.IDLE;
  private String requestId;
  private boolean head;
  private boolean keepAlive;
  private S3Request request;
  private S3Operation operation;
  private Authentication auth;
  private BodyReceiver body;
  private S3Response.BodyStream stream;
  private long requestLength;
  private long discardBudget;
  private boolean closeWhenDiscarded;
  private boolean awaitingContinue;
  /** The endpoint of the request being received when it is a service request, else null. */
  private ServiceEndpoint service;

  S3RequestHandler(S3ServerConfig config, SigV4Verifier verifier, S3Dispatcher dispatcher,
      Supplier<String> requestIds, Map<String, ServiceEndpoint> services) {
    this.config = config;
    this.verifier = verifier;
    this.dispatcher = dispatcher;
    this.requestIds = requestIds;
    this.services = Map.copyOf(services);
    this.clock = config.clock();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state == State.PROCESSING) {
      // Reading pauses only once the client sends ahead of an answer (pipelining): toggling it
      // for every request would cost two epoll_ctl calls per cache hit.
      ctx.channel().config().setAutoRead(false);
      pipelined.add(msg);
      if (pipelined.size() > MAX_PIPELINED) {
        ctx.close();
      }
      return;
    }
    try {
      handle(ctx, msg);
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void handle(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof DecoderResultProvider decoded && decoded.decoderResult().isFailure()) {
      onDecoderFailure(ctx, msg, decoded.decoderResult().cause());
      return;
    }
    if (msg instanceof HttpRequest httpRequest) {
      onRequest(ctx, httpRequest);
    }
    if (msg instanceof HttpContent content) {
      onContent(ctx, content);
    }
  }

  private void onRequest(ChannelHandlerContext ctx, HttpRequest httpRequest) {
    requestId = requestIds.get();
    if (LOG.isTraceEnabled()) {
      LOG.trace("Request {}: {} {} {}", requestId, httpRequest.method(), httpRequest.uri(),
          httpRequest.headers().entries());
    }
    head = HttpMethod.HEAD.equals(httpRequest.method());
    keepAlive = HttpUtil.isKeepAlive(httpRequest);
    request = null;
    body = null;
    state = State.RECEIVING;
    boolean hasBody = HttpUtil.getContentLength(httpRequest, 0L) > 0
        || HttpUtil.isTransferEncodingChunked(httpRequest);
    requestLength = HttpUtil.getContentLength(httpRequest, 0L);
    awaitingContinue = HttpUtil.is100ContinueExpected(httpRequest);
    closeWhenDiscarded = false;
    service = null;
    String resource = "/";
    try {
      request = S3Request.parse(httpRequest, requestId, config.virtualHostDomain());
      resource = request.resource();
      if (request.service != null) {
        if (!startServiceRequest(ctx, hasBody)) {
          return;
        }
      } else {
        auth = verifier.verify(request);
        operation = S3Router.route(request);
        SessionAuthorization.check(auth, operation, request);
        body = switch (operation.body) {
          case OBJECT -> BodyReceiver.forObject(request, auth, config.maxObjectSize(),
              config.spoolThresholdBytes(), config.spoolDirectory());
          case XML -> BodyReceiver.forXml(request, auth, MAX_XML_BODY);
          case NONE -> null;
        };
      }
      if (awaitingContinue) {
        awaitingContinue = false;
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
      }
    } catch (RuntimeException e) {
      answerEarly(ctx, e, resource, hasBody);
    }
  }

  /**
   * A request under a reserved segment (/catalog, /v1) goes to its service endpoint instead of
   * SigV4 and the S3 router: its head is checked there (the bearer token), and its body is kept
   * in memory within the endpoint's limit. Returns false when it was answered already.
   */
  private boolean startServiceRequest(ChannelHandlerContext ctx, boolean hasBody) {
    ServiceEndpoint endpoint = services.get(request.service);
    if (endpoint == null) {
      answerEarly(ctx, S3Errors.serviceNotConfigured(request.service), hasBody);
      return false;
    }
    ServiceEndpoint.Reply refused = endpoint.check(request.method.name(), request.headers);
    if (refused != null) {
      answerEarly(ctx, serviceResponse(refused), hasBody);
      return false;
    }
    service = endpoint;
    auth = SERVICE_AUTH;
    body = BodyReceiver.forXml(request, auth, endpoint.maxBodyBytes());
    return true;
  }

  private CompletableFuture<S3Response> dispatchService(SpooledBody spooled) {
    ServiceEndpoint.Call call = new ServiceEndpoint.Call(request.method.name(), request.rawPath,
        request.params, request.headers, spooled == null ? new byte[0] : spooled.bytes());
    return service.handle(call).thenApply(S3RequestHandler::serviceResponse);
  }

  private static S3Response serviceResponse(ServiceEndpoint.Reply reply) {
    S3Response response = S3Response.of(HttpResponseStatus.valueOf(reply.status()));
    reply.headers().forEach(response::header);
    return reply.body() == null ? response : response.body(reply.body(), reply.contentType());
  }

  private void onContent(ChannelHandlerContext ctx, HttpContent content) {
    if (state == State.RECEIVING && body != null) {
      try {
        body.accept(content.content());
      } catch (RuntimeException e) {
        answerEarly(ctx, e, request.resource(), !(content instanceof LastHttpContent));
        return;
      }
    } else if (state == State.DISCARDING) {
      discardBudget -= content.content().readableBytes();
      if (discardBudget < 0) {
        ctx.close();
        return;
      }
    }
    if (content instanceof LastHttpContent) {
      if (state == State.DISCARDING) {
        state = State.IDLE;
        if (closeWhenDiscarded) {
          ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close());
        }
      } else if (state == State.RECEIVING) {
        process(ctx);
      }
    }
  }

  /**
   * A message Netty's decoder could not parse: a request head with a malformed, negative or
   * conflicting Content-Length, an oversized header section or request line, or broken chunk
   * framing in a body. The decoder drops every later byte of the connection, so the request is
   * answered with a 400 (unless an answer is out already) and the connection closed.
   */
  private void onDecoderFailure(ChannelHandlerContext ctx, Object msg, Throwable cause) {
    keepAlive = false;
    if (state == State.DISCARDING) {
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    if (msg instanceof HttpRequest httpRequest) {
      requestId = requestIds.get();
      head = HttpMethod.HEAD.equals(httpRequest.method());
      request = null;
      awaitingContinue = false;
      service = null;
      answerEarly(ctx, unparsableRequest(cause), "/", false);
      return;
    }
    // Broken framing inside a body: what arrived must not be taken for the whole body.
    answerEarly(ctx, new S3Exception(S3ErrorCode.INCOMPLETE_BODY,
        "Cannot read the request body: " + cause.getMessage(), cause),
        request != null ? request.resource() : "/", false);
  }

  /** The error S3 answers for a request it cannot parse; the reason names the bad part. */
  private static S3Exception unparsableRequest(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      return new S3Exception(S3ErrorCode.REQUEST_HEADER_SECTION_TOO_LARGE,
          "Cannot parse the HTTP request: its header section exceeds the maximum allowed size of "
              + S3ServerInitializer.MAX_HEADER_SIZE + " bytes", cause)
          .detail("MaxSizeAllowed", Integer.toString(S3ServerInitializer.MAX_HEADER_SIZE));
    }
    return new S3Exception(S3ErrorCode.BAD_REQUEST,
        "Cannot parse the HTTP request: " + cause.getMessage(), cause);
  }

  private void process(ChannelHandlerContext ctx) {
    state = State.PROCESSING;
    BodyReceiver receiver = body;
    CompletableFuture<S3Response> result;
    try {
      SpooledBody spooled = receiver != null ? receiver.finish() : null;
      if (service != null) {
        result = dispatchService(spooled);
      } else {
        Exchange exchange = new Exchange(request, auth, spooled,
            receiver != null ? receiver.checksums() : null);
        result = dispatcher.dispatch(operation, exchange);
      }
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    String resource = request.resource();
    result.whenComplete((response, error) -> {
      Runnable answer = () -> {
        if (receiver != null) {
          receiver.close();
        }
        respond(ctx, error == null ? response : errorResponse(error, resource), keepAlive);
      };
      if (ctx.executor().inEventLoop()) {
        // Completed at once (a cache hit): answer without another trip through the task queue.
        answer.run();
        return;
      }
      try {
        ctx.executor().execute(answer);
      } catch (RejectedExecutionException e) {
        // The server is shutting down; still delete a spooled body.
        if (receiver != null) {
          receiver.close();
        }
      }
    });
  }

  /** Answers before the request is fully read; later content is dropped until its end. */
  private void answerEarly(ChannelHandlerContext ctx, Throwable error, String resource,
      boolean bodyPending) {
    answerEarly(ctx, errorResponse(error, resource), bodyPending);
  }

  /**
   * Closing a socket with unread request bytes makes the kernel send RST, and the client may lose
   * the answer it has not read yet. So the rest of the body is read and dropped (up to
   * {@link #MAX_DISCARD} bytes) before the connection is closed or reused; only a larger body is
   * cut off at once. Clients that send {@code Expect: 100-continue} never get here with a body.
   */
  private void answerEarly(ChannelHandlerContext ctx, S3Response response, boolean bodyPending) {
    state = State.DISCARDING;
    if (body != null) {
      body.close();
      body = null;
    }
    discardBudget = MAX_DISCARD;
    // A client told "no" before "100 Continue" will not send the body: nothing to drain, and the
    // connection cannot be reused (the server cannot tell whether body bytes follow).
    boolean cutOff = bodyPending && (awaitingContinue || requestLength > MAX_DISCARD);
    boolean keep = keepAlive && !cutOff;
    closeWhenDiscarded = !keep && bodyPending && !cutOff;
    ctx.writeAndFlush(toHttp(response, keep)).addListener(f -> {
      if (!f.isSuccess() || (!keep && !closeWhenDiscarded)) {
        ctx.close();
      }
    });
  }

  private S3Response errorResponse(Throwable error, String resource) {
    S3Exception e = S3Errors.toS3(error, requestId);
    if (service != null) {
      return serviceResponse(service.error(e.code().status().code(), e.getMessage()));
    }
    if (e.code() == S3ErrorCode.INTERNAL_ERROR) {
      LOG.debug("Request {} on {} failed", requestId, resource, e);
    }
    return S3Errors.toResponse(e, resource, requestId, head);
  }

  private void respond(ChannelHandlerContext ctx, S3Response response, boolean keep) {
    if (!ctx.channel().isActive()) {
      if (response.stream() != null) {
        response.stream().abort();
      }
      return;
    }
    if (response.stream() == null) {
      ctx.writeAndFlush(toHttp(response, keep)).addListener(f -> requestDone(ctx, keep, f.isSuccess()));
      return;
    }
    addCommonHeaders(response, keep);
    ctx.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, response.status, response.headers));
    stream = response.stream();
    ChannelPromise done = ctx.newPromise();
    done.addListener(f -> {
      stream = null;
      if (f.isSuccess()) {
        requestDone(ctx, keep, true);
      } else {
        LOG.debug("Request {}: response stream failed, resetting the connection", requestId, f.cause());
        abortConnection(ctx);
      }
    });
    stream.start(ctx, done);
  }

  private DefaultFullHttpResponse toHttp(S3Response response, boolean keep) {
    addCommonHeaders(response, keep);
    byte[] content = response.body();
    int status = response.status.code();
    if (status != 204 && status != 304 && !(head && response.headers.contains(HttpHeaderNames.CONTENT_LENGTH))) {
      response.headers.set(HttpHeaderNames.CONTENT_LENGTH, head ? 0 : response.bodyLength());
    }
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, response.status,
        head || response.bodyLength() == 0 ? Unpooled.EMPTY_BUFFER
            : Unpooled.wrappedBuffer(content, response.bodyOffset(), response.bodyLength()),
        response.headers, EmptyHttpHeaders.INSTANCE);
  }

  private void addCommonHeaders(S3Response response, boolean keep) {
    response.headers
        .set(S3Headers.X_AMZ_REQUEST_ID, requestId)
        .set(S3Headers.X_AMZ_ID_2, requestId)
        .set(HttpHeaderNames.DATE, S3Dates.http(clock.instant()))
        .set(HttpHeaderNames.SERVER, "Verglas");
    if (!keep) {
      response.headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
  }

  private void requestDone(ChannelHandlerContext ctx, boolean keep, boolean success) {
    state = State.IDLE;
    request = null;
    body = null;
    auth = null;
    operation = null;
    if (!keep || !success) {
      ctx.close();
      return;
    }
    while (state != State.PROCESSING && !pipelined.isEmpty()) {
      Object msg = pipelined.poll();
      try {
        handle(ctx, msg);
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
    if (state != State.PROCESSING) {
      ctx.channel().config().setAutoRead(true);
      ctx.read();
    }
  }

  /**
   * Ends a response that cannot be completed. A plain close is not enough: some clients
   * (HttpURLConnection) take an early EOF as the end of a Content-Length body and return it
   * short without an error. With SO_LINGER 0 the close sends RST, which every client reports.
   */
  private static void abortConnection(ChannelHandlerContext ctx) {
    try {
      ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (RuntimeException e) {
      // not a TCP channel (tests): a close is all there is
    }
    ctx.close();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (stream != null) {
      stream.writabilityChanged();
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (stream != null) {
      stream.abort();
      stream = null;
    }
    if (body != null && state != State.PROCESSING) {
      body.close();
      body = null;
    }
    while (!pipelined.isEmpty()) {
      ReferenceCountUtil.release(pipelined.poll());
    }
    super.channelInactive(ctx);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    // Idle means no traffic for minutes; a request still waiting for its origin is not idle.
    if (evt instanceof IdleStateEvent && state != State.PROCESSING) {
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("Closing a connection after an error", cause);
    ctx.close();
  }

}
