package io.verglas.cache.s3;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.verglas.cache.block.BlockCache;
import io.verglas.cache.block.MetadataStore;
import io.verglas.cache.block.MissPath;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.ObservedOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.protection.Delayer;
import io.verglas.cache.protection.ProtectedOrigin;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.UnaryOperator;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The S3 endpoint's lifecycle: wires the read and write paths over an origin, binds, and shuts
 * the event loops down. Internal: applications use {@code io.verglas.cache.CacheNode}.
 */
public final class S3Server implements AutoCloseable {
  /** Names of the event loop threads serving connections (followed by pool and thread numbers). */
  public static final String IO_THREAD_PREFIX = "verglas-s3-io";

  private final S3ServerConfig config;
  private final Origin origin;
  private final LongAdder originRequests = new LongAdder();
  private final ProtectedOrigin protectedOrigin;
  private final ScheduledExecutorService timer;
  private final BlockCache blocks;
  private final ObjectMetaCache metas;
  private final MetadataStore metadataStore;
  private final ObjectReads reads;
  private final LongAdder bytesFromCache = new LongAdder();
  private final S3ServerInitializer initializer;
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private Channel channel;
  private boolean closed;

  public S3Server(S3ServerConfig config, Origin origin) {
    this(config, origin, ReadObserver.NONE, List.of());
  }

  /**
   * A server telling {@code observer} of each object read it serves, and serving each reserved
   * path segment ({@code /catalog}, {@code /v1}) with the one of {@code services} that owns it
   * (one it lacks answers 501).
   */
  public S3Server(S3ServerConfig config, Origin origin, ReadObserver observer,
      List<ServiceEndpoint> services) {
    this(config, origin, observer, services, MissPath.ORIGIN, KeyChanges.NONE);
  }

  /**
   * As above, in a cache cluster: client reads' block misses take {@code missPath} before the
   * origin, and writes tell {@code changes} before they are answered.
   */
  public S3Server(S3ServerConfig config, Origin origin, ReadObserver observer,
      List<ServiceEndpoint> services, MissPath missPath, KeyChanges changes) {
    this(config, origin, observer, services, missPath, changes, UnaryOperator.identity());
  }

  /**
   * As above, with {@code front} laid over the protected, counted origin before the read and
   * write paths see it (write-back buffers writes there; what it sends on is protected and
   * counted like any origin call).
   */
  public S3Server(S3ServerConfig config, Origin origin, ReadObserver observer,
      List<ServiceEndpoint> services, MissPath missPath, KeyChanges changes, UnaryOperator<Origin> front) {
    this.config = config;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "verglas-origin-timer");
      t.setDaemon(true);
      return t;
    });
    this.protectedOrigin = new ProtectedOrigin(origin, config.originProtection(), config.clock(),
        Delayer.scheduled(timer), () -> ThreadLocalRandom.current().nextDouble(), timer);
    this.origin = front.apply(new ObservedOrigin(protectedOrigin, (bucket, key) -> originRequests.increment()));
    this.blocks = new BlockCache(config.dramCapacityBytes(), config.nvmeDirectory(),
        config.nvmeCapacityBytes(), config.nvmeIoThreads(), config.blockSize());
    this.metadataStore = config.metadataStoreCapacityBytes() == 0 ? null
        : new MetadataStore(config.metadataStoreCapacityBytes(), config.metadataStoreMaxEntryBytes());
    this.metas = new ObjectMetaCache(this.origin, config.metadataTtl(), config.clock(),
        config.immutableObjects());
    this.reads = new ObjectReads(this.origin, metas, blocks, metadataStore, config.blockSize(), bytesFromCache,
        java.util.Objects.requireNonNull(observer, "observer"), config.backgroundAccessKeys(),
        java.util.Objects.requireNonNull(missPath, "missPath"));
    WriteGate gate = new WriteGate(this.origin, metas, java.util.Objects.requireNonNull(changes, "changes"));
    S3Dispatcher dispatcher = new S3Dispatcher(
        reads,
        new ObjectWrites(this.origin, gate),
        new Listings(this.origin),
        new Buckets(this.origin, config.region()),
        new Multiparts(this.origin, gate,
            new PartCopies(this.origin, config.spoolThresholdBytes(), config.spoolDirectory())),
        new ObjectAttributes(this.origin),
        new Acls(this.origin));
    VerifiedSessions sessions = config.scopedTokens() == null ? null
        : new VerifiedSessions(config.scopedTokens(), config.clock(), config.sessionCacheEntries());
    SigV4Verifier verifier = new SigV4Verifier(config.credentials(), sessions,
        config.allowAnonymous(), config.clock(), config.maxClockSkew());
    this.initializer = new S3ServerInitializer(config, verifier, dispatcher, requestIds(),
        bySegment(services));
  }

  private static Map<String, ServiceEndpoint> bySegment(List<ServiceEndpoint> services) {
    Map<String, ServiceEndpoint> bySegment = new HashMap<>();
    for (ServiceEndpoint service : services) {
      if (!ServiceEndpoint.RESERVED.contains(service.segment())) {
        throw new IllegalArgumentException("Cannot serve /" + service.segment()
            + ": service endpoints live under " + ServiceEndpoint.RESERVED);
      }
      if (bySegment.put(service.segment(), service) != null) {
        throw new IllegalArgumentException("Cannot serve /" + service.segment() + " twice");
      }
    }
    return bySegment;
  }

  /** Binds and returns the bound port. */
  public synchronized int start() {
    if (closed) {
      throw new IllegalStateException("Cannot start a closed server");
    }
    if (channel != null) {
      throw new IllegalStateException("Cannot start the server twice");
    }
    Transport transport = Transport.best();
    boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("verglas-s3-accept", true),
        transport.ioHandlerFactory());
    int loops = config.ioThreads() > 0 ? config.ioThreads() : Runtime.getRuntime().availableProcessors();
    workers = new MultiThreadIoEventLoopGroup(loops, new DefaultThreadFactory(IO_THREAD_PREFIX, true),
        transport.ioHandlerFactory());
    try {
      channel = new ServerBootstrap()
          .group(boss, workers)
          .channel(transport.serverChannel())
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
              new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024))
          .childHandler(initializer)
          .bind(config.host(), config.port())
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      shutdownGroups();
      throw new IllegalStateException(
          "Cannot bind the S3 endpoint to " + config.host() + ":" + config.port() + ": " + e, e);
    }
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  public ProtectedOrigin protectedOrigin() {
    return protectedOrigin;
  }

  public BlockCache blockCache() {
    return blocks;
  }

  /** The metadata store, or null if disabled. */
  public MetadataStore metadataStore() {
    return metadataStore;
  }

  /**
   * Resolves a key to its current version as a GET does (through the node's ETag cache), for
   * the node's own background reads (metadata warming).
   */
  public CompletableFuture<ObjectMeta> resolve(String bucket, String key) {
    return metas.resolve(bucket, key);
  }

  /**
   * Reads bytes of the version with {@code etag} from the origin as a cache fill does (counted,
   * protected, and dropping the cached ETag if the object changed), for the node's own
   * background reads; the caller places the bytes in the block cache or metadata store.
   */
  public CompletableFuture<byte[]> readVersion(String bucket, String key, String etag, long offset, int length) {
    return reads.versionRead(bucket, key, etag, offset, length);
  }

  /** Drops the resolved ETag of the key (another node wrote it): the next read asks the origin. */
  public void forget(String bucket, String key) {
    metas.invalidate(bucket, key);
  }

  /** Lookups of a mutable object's ETag that asked the origin again after the TTL. */
  public long revalidations() {
    return metas.revalidations();
  }

  /** Revalidations the origin answered with "not modified". */
  public long revalidationsNotModified() {
    return metas.notModified();
  }

  /**
   * Forgets everything cached for keys of {@code bucket} starting with {@code prefix}: blocks
   * (DRAM and NVMe), metadata store entries and resolved ETags. Reads after it go to the origin.
   */
  public PurgeCounts purge(String bucket, String prefix) {
    long etags = metas.purge((b, k) -> b.equals(bucket) && k.startsWith(prefix));
    long blockCount = blocks.purge(id -> id.bucket().equals(bucket) && id.key().startsWith(prefix));
    long metadata = metadataStore == null ? 0
        : metadataStore.purge(k -> k.bucket().equals(bucket) && k.key().startsWith(prefix));
    return new PurgeCounts(blockCount, metadata, etags);
  }

  /** What a purge removed. */
  public record PurgeCounts(long blocks, long metadataEntries, long etags) {}

  public long originRequests() {
    return originRequests.sum();
  }

  public long bytesServedFromCache() {
    return bytesFromCache.sum();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    shutdownGroups();
    timer.shutdownNow();
    blocks.close();
    if (metadataStore != null) {
      metadataStore.invalidateAll();
    }
  }

  private void shutdownGroups() {
    if (boss != null) {
      boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (workers != null) {
      workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** Request ids: a random per-server prefix and a counter, as 16 upper-case hex digits. */
  private static java.util.function.Supplier<String> requestIds() {
    long base = ThreadLocalRandom.current().nextLong() & 0xFFFFFFFF00000000L;
    AtomicLong counter = new AtomicLong();
    HexFormat hex = HexFormat.of().withUpperCase();
    return () -> hex.toHexDigits(base | (counter.incrementAndGet() & 0xFFFFFFFFL));
  }
}
