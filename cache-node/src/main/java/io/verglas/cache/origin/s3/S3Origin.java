package io.verglas.cache.origin.s3;

import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.PartInfo;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PartRange;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.StandardRetryStrategy;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.BucketLocationConstraint;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An {@link Origin} in front of any S3-compatible store, through the AWS SDK v2 asynchronous
 * client (Netty). Bucket names pass through unchanged.
 *
 * <p>Version atomicity: range reads carry {@code If-Match} with the expected ETag, so the store
 * answers 412 instead of bytes of another version. Revalidation is a HEAD with
 * {@code If-None-Match} (304 means unchanged). Conditional writes map to S3's own conditional
 * PUT, CompleteMultipartUpload and CopyObject ({@code If-None-Match: *}, {@code If-Match}).
 *
 * <p>The SDK's own retries are switched off: a node retries through its
 * {@link io.verglas.cache.protection.ProtectedOrigin}, which knows which calls may be repeated.
 * Checksums are only sent when an operation requires them, so stores that do not know the newer
 * {@code x-amz-checksum-*} trailers work too. Errors become {@link OriginException}s by S3 error
 * code and status; I/O failures become {@link Reason#UNAVAILABLE}.
 */
public final class S3Origin implements Origin {
  private final S3AsyncClient client;
  private final boolean ownsClient;
  private final ExecutorService bodyReaders;
  private final String region;
  private final Clock clock;

  private S3Origin(S3AsyncClient client, boolean ownsClient, String region, Clock clock) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.region = region;
    this.clock = clock;
    AtomicInteger n = new AtomicInteger();
    this.bodyReaders = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "verglas-s3-origin-body-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** An origin over a client the caller configured and keeps owning. */
  public static S3Origin wrap(S3AsyncClient client, String region) {
    return new S3Origin(Objects.requireNonNull(client, "client"), false,
        Objects.requireNonNull(region, "region"), Clock.systemUTC());
  }

  public static Builder builder() {
    return new Builder();
  }

  // ---- buckets

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    return call(client.listBuckets(b -> { }), null, r -> {
      List<BucketInfo> buckets = new ArrayList<>();
      r.buckets().forEach(b -> buckets.add(new BucketInfo(b.name(), b.creationDate())));
      return buckets;
    });
  }

  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    return client.headBucket(b -> b.bucket(bucket)).handle((r, error) -> {
      if (error == null) {
        return true;
      }
      Throwable e = unwrap(error);
      if (e instanceof S3Exception s3 && s3.statusCode() == 404) {
        return false;
      }
      throw translate(e, bucket, null);
    });
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    return call(client.createBucket(b -> {
      b.bucket(bucket);
      if (!region.equals("us-east-1")) {
        b.createBucketConfiguration(c -> c.locationConstraint(BucketLocationConstraint.fromValue(region)));
      }
    }), bucket, r -> null);
  }

  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    return call(client.deleteBucket(b -> b.bucket(bucket)), bucket, r -> null);
  }

  // ---- reads

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return call(client.headObject(b -> b.bucket(bucket).key(key)), bucket, key, S3Origin::meta);
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    HeadObjectRequest request = HeadObjectRequest.builder().bucket(bucket).key(key).ifNoneMatch(etag).build();
    return client.headObject(request).handle((r, error) -> {
      if (error == null) {
        return Optional.of(meta(r));
      }
      Throwable e = unwrap(error);
      if (e instanceof S3Exception s3 && s3.statusCode() == 304) {
        return Optional.empty();
      }
      throw translate(e, bucket, key);
    });
  }

  @Override
  public CompletableFuture<byte[]> readRange(String bucket, String key, String expectedEtag, long offset, int length) {
    if (length == 0) {
      return CompletableFuture.completedFuture(new byte[0]);
    }
    GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(key)
        .range("bytes=" + offset + "-" + (offset + length - 1)).ifMatch(expectedEtag).build();
    return call(client.getObject(request, AsyncResponseTransformer.toBytes()), bucket, key,
        bytes -> bytes.asByteArrayUnsafe());
  }

  /**
   * One HEAD with {@code partNumber} and {@code If-Match}: S3 answers the part's Content-Range and
   * the parts count. A part number beyond the count (416) costs a second HEAD for the count.
   */
  @Override
  public CompletableFuture<PartRange> partRange(String bucket, String key, String etag, int partNumber) {
    return client.headObject(b -> b.bucket(bucket).key(key).ifMatch(etag).partNumber(partNumber))
        .handle((r, error) -> {
          if (error == null) {
            return CompletableFuture.completedFuture(partRange(r, bucket, key));
          }
          Throwable e = unwrap(error);
          if (e instanceof S3Exception s3 && s3.statusCode() == 416 && partNumber > 1) {
            return partRange(bucket, key, etag, 1).thenApply(first -> PartRange.beyond(first.partsCount()));
          }
          throw translate(e, bucket, key);
        })
        .thenCompose(f -> f);
  }

  static PartRange partRange(HeadObjectResponse r, String bucket, String key) {
    int count = r.partsCount() == null ? 1 : r.partsCount();
    String range = r.contentRange();
    long length = r.contentLength() == null ? 0 : r.contentLength();
    if (range == null) {
      return new PartRange(count, 0, length - 1);
    }
    try {
      String spec = range.trim().substring("bytes ".length());
      int dash = spec.indexOf('-');
      int slash = spec.indexOf('/');
      return new PartRange(count, Long.parseLong(spec.substring(0, dash)),
          Long.parseLong(spec.substring(dash + 1, slash)));
    } catch (RuntimeException e) {
      throw new IllegalStateException("Cannot read a part of " + bucket + "/" + key
          + ": the origin answered Content-Range " + range, e);
    }
  }

  @Override
  public CompletableFuture<ObjectMeta> headVersion(String bucket, String key, String versionId) {
    return call(client.headObject(b -> b.bucket(bucket).key(key).versionId(versionId)), bucket, key, S3Origin::meta);
  }

  @Override
  public CompletableFuture<byte[]> readVersionRange(String bucket, String key, String versionId, long offset, int length) {
    if (length == 0) {
      return CompletableFuture.completedFuture(new byte[0]);
    }
    GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(key).versionId(versionId)
        .range("bytes=" + offset + "-" + (offset + length - 1)).build();
    return call(client.getObject(request, AsyncResponseTransformer.toBytes()), bucket, key,
        bytes -> bytes.asByteArrayUnsafe());
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    ListObjectsV2Request.Builder b = ListObjectsV2Request.builder().bucket(request.bucket())
        .prefix(request.prefix().isEmpty() ? null : request.prefix())
        .delimiter(request.delimiter())
        .maxKeys(request.maxKeys());
    if (request.continuationToken() != null) {
      b.continuationToken(request.continuationToken());
    } else if (request.startAfter() != null) {
      b.startAfter(request.startAfter());
    }
    return call(client.listObjectsV2(b.build()), request.bucket(), r -> {
      List<ListedObject> objects = new ArrayList<>();
      r.contents().forEach(o -> objects.add(new ListedObject(o.key(), o.size(),
          o.lastModified() != null ? o.lastModified() : Instant.EPOCH, ETags.quote(o.eTag()))));
      List<String> prefixes = new ArrayList<>();
      r.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
      boolean truncated = Boolean.TRUE.equals(r.isTruncated());
      return new ListPage(objects, prefixes, truncated, truncated ? r.nextContinuationToken() : null);
    });
  }

  // ---- writes

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    PutObjectRequest.Builder b = PutObjectRequest.builder().bucket(bucket).key(key)
        .contentLength(body.length())
        .contentType(options.contentType())
        .metadata(options.userMetadata());
    contentHeaders(options.contentHeaders(), b::cacheControl, b::contentDisposition,
        b::contentEncoding, b::contentLanguage, b::expires);
    WriteCondition c = options.condition();
    if (c.mustNotExist()) {
      b.ifNoneMatch("*");
    } else if (c.ifMatchEtag() != null) {
      b.ifMatch(c.ifMatchEtag());
    }
    return withBody(body, requestBody -> client.putObject(b.build(), requestBody))
        .thenApply(r -> new PutResult(ETags.quote(r.eTag()), clock.instant()))
        .exceptionally(e -> { throw translate(unwrap(e), bucket, key); });
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    if (condition.mustNotExist()) {
      return CompletableFuture.failedFuture(new OriginException(Reason.NOT_IMPLEMENTED,
          "Cannot delete with If-None-Match: *"));
    }
    return call(client.deleteObject(b -> b.bucket(bucket).key(key).ifMatch(condition.ifMatchEtag())),
        bucket, key, r -> null);
  }

  @Override
  public CompletableFuture<Void> deleteVersion(String bucket, String key, String versionId) {
    return call(client.deleteObject(b -> b.bucket(bucket).key(key).versionId(versionId)), bucket, key, r -> null);
  }

  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    CopyObjectRequest.Builder b = CopyObjectRequest.builder()
        .sourceBucket(request.sourceBucket()).sourceKey(request.sourceKey())
        .sourceVersionId(request.sourceVersionId())
        .copySourceIfMatch(request.expectedSourceEtag())
        .destinationBucket(request.bucket()).destinationKey(request.key());
    if (request.replacement() != null) {
      WriteOptions o = request.replacement();
      b.metadataDirective(MetadataDirective.REPLACE).contentType(o.contentType()).metadata(o.userMetadata());
      contentHeaders(o.contentHeaders(), b::cacheControl, b::contentDisposition, b::contentEncoding,
          b::contentLanguage, b::expires);
    }
    WriteCondition c = request.targetCondition();
    if (c.mustNotExist()) {
      b.ifNoneMatch("*");
    } else if (c.ifMatchEtag() != null) {
      b.ifMatch(c.ifMatchEtag());
    }
    return call(client.copyObject(b.build()), request.bucket(), request.key(), r -> new PutResult(
        ETags.quote(r.copyObjectResult().eTag()),
        r.copyObjectResult().lastModified() != null ? r.copyObjectResult().lastModified() : clock.instant()));
  }

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    CreateMultipartUploadRequest.Builder b = CreateMultipartUploadRequest.builder().bucket(bucket).key(key)
        .contentType(options.contentType()).metadata(options.userMetadata());
    contentHeaders(options.contentHeaders(), b::cacheControl, b::contentDisposition, b::contentEncoding,
        b::contentLanguage, b::expires);
    return call(client.createMultipartUpload(b.build()), bucket, key, r -> r.uploadId());
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    return withBody(body, requestBody -> client.uploadPart(b -> b.bucket(upload.bucket()).key(upload.key())
            .uploadId(upload.uploadId()).partNumber(partNumber).contentLength(body.length()), requestBody))
        .thenApply(r -> ETags.quote(r.eTag()))
        .exceptionally(e -> { throw translate(unwrap(e), upload.bucket(), upload.key()); });
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(MultipartUpload upload,
      List<CompletedPart> parts, WriteCondition condition) {
    List<software.amazon.awssdk.services.s3.model.CompletedPart> completed = new ArrayList<>();
    for (CompletedPart p : parts) {
      completed.add(software.amazon.awssdk.services.s3.model.CompletedPart.builder()
          .partNumber(p.partNumber()).eTag(p.etag()).build());
    }
    return call(client.completeMultipartUpload(b -> {
      b.bucket(upload.bucket()).key(upload.key()).uploadId(upload.uploadId())
          .multipartUpload(CompletedMultipartUpload.builder().parts(completed).build());
      if (condition.mustNotExist()) {
        b.ifNoneMatch("*");
      } else if (condition.ifMatchEtag() != null) {
        b.ifMatch(condition.ifMatchEtag());
      }
    }), upload.bucket(), upload.key(), r -> new PutResult(ETags.quote(r.eTag()), clock.instant()));
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    return call(client.abortMultipartUpload(b -> b.bucket(upload.bucket()).key(upload.key())
        .uploadId(upload.uploadId())), upload.bucket(), upload.key(), r -> null);
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    return call(client.listParts(b -> b.bucket(upload.bucket()).key(upload.key()).uploadId(upload.uploadId())
        .partNumberMarker(partNumberMarker == 0 ? null : partNumberMarker).maxParts(maxParts)),
        upload.bucket(), upload.key(), r -> {
          List<PartInfo> parts = new ArrayList<>();
          r.parts().forEach(p -> parts.add(new PartInfo(p.partNumber(), ETags.quote(p.eTag()), p.size(),
              p.lastModified() != null ? p.lastModified() : Instant.EPOCH)));
          Integer next = r.nextPartNumberMarker();
          return new PartListing(parts, Boolean.TRUE.equals(r.isTruncated()), next == null ? 0 : next);
        });
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return call(client.listMultipartUploads(b -> b.bucket(request.bucket())
        .prefix(request.prefix().isEmpty() ? null : request.prefix())
        .keyMarker(request.keyMarker()).uploadIdMarker(request.uploadIdMarker())
        .maxUploads(request.maxUploads())),
        request.bucket(), null, r -> new UploadListing(
            r.uploads().stream().map(u -> new UploadListing.Upload(u.key(), u.uploadId(),
                u.initiated() != null ? u.initiated() : Instant.EPOCH)).toList(),
            Boolean.TRUE.equals(r.isTruncated()), r.nextKeyMarker(), r.nextUploadIdMarker()));
  }

  /** Closes the client if this origin built it. */
  @Override
  public void close() {
    bodyReaders.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }

  // ---- helpers

  private <T> CompletableFuture<T> withBody(ObjectBody body,
      Function<AsyncRequestBody, CompletableFuture<T>> send) {
    InputStream in;
    try {
      in = body.openStream();
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> sent;
    try {
      sent = send.apply(AsyncRequestBody.fromInputStream(in, body.length(), bodyReaders));
    } catch (RuntimeException e) {
      closeQuietly(in);
      return CompletableFuture.failedFuture(e);
    }
    return sent.whenComplete((r, e) -> closeQuietly(in));
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  private interface Setter<V> {
    Object set(V value);
  }

  private static void contentHeaders(Map<String, String> headers, Setter<String> cacheControl,
      Setter<String> disposition, Setter<String> encoding, Setter<String> language, Setter<Instant> expires) {
    cacheControl.set(headers.get("cache-control"));
    disposition.set(headers.get("content-disposition"));
    encoding.set(headers.get("content-encoding"));
    language.set(headers.get("content-language"));
    String e = headers.get("expires");
    if (e != null) {
      try {
        expires.set(java.time.ZonedDateTime.parse(e, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
      } catch (java.time.format.DateTimeParseException ignored) {
        // S3 stores what it can parse; an unparsable Expires is dropped
      }
    }
  }

  static ObjectMeta meta(HeadObjectResponse r) {
    if (r.eTag() == null) {
      // s3proxy's file-system store answers so for a directory marker ("dir/"); without an ETag
      // no read can be pinned to a version.
      throw new IllegalStateException("Cannot use the origin's object: its answer has no ETag");
    }
    Map<String, String> content = new LinkedHashMap<>();
    putIfPresent(content, "cache-control", r.cacheControl());
    putIfPresent(content, "content-disposition", r.contentDisposition());
    putIfPresent(content, "content-encoding", r.contentEncoding());
    putIfPresent(content, "content-language", r.contentLanguage());
    putIfPresent(content, "expires", r.expiresString());
    Map<String, String> user = new LinkedHashMap<>();
    r.metadata().forEach((k, v) -> user.put(k.toLowerCase(java.util.Locale.ROOT), v));
    return new ObjectMeta(ETags.quote(r.eTag()), r.contentLength() == null ? 0 : r.contentLength(),
        r.lastModified() != null ? r.lastModified() : Instant.EPOCH, r.contentType(), user, content);
  }

  private static void putIfPresent(Map<String, String> map, String name, String value) {
    if (value != null && !value.isEmpty()) {
      map.put(name, value);
    }
  }

  private <R, T> CompletableFuture<T> call(CompletableFuture<R> sdk, String bucket, Function<R, T> map) {
    return call(sdk, bucket, null, map);
  }

  private <R, T> CompletableFuture<T> call(CompletableFuture<R> sdk, String bucket, String key, Function<R, T> map) {
    return sdk.handle((r, error) -> {
      if (error != null) {
        throw translate(unwrap(error), bucket, key);
      }
      return map.apply(r);
    });
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** The origin failure a client should see for an SDK error. */
  static RuntimeException translate(Throwable e, String bucket, String key) {
    if (e instanceof OriginException o) {
      return o;
    }
    String what = key == null ? String.valueOf(bucket) : bucket + "/" + key;
    if (e instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
      String message = s3.awsErrorDetails() != null && s3.awsErrorDetails().errorMessage() != null
          ? s3.awsErrorDetails().errorMessage() : s3.getMessage();
      Reason reason = reasonFor(code, s3.statusCode(), key != null);
      if (reason != null) {
        return new OriginException(reason, message + " (origin: " + what + ")", s3);
      }
      return new IllegalStateException("The origin answered " + s3.statusCode() + " " + code
          + " for " + what + ": " + message, s3);
    }
    if (e instanceof SdkClientException) {
      return new OriginException(Reason.UNAVAILABLE, "Cannot reach the origin for " + what + ": "
          + e.getMessage(), e);
    }
    return e instanceof RuntimeException re ? re : new CompletionException(e);
  }

  static Reason reasonFor(String code, int status, boolean objectRequest) {
    if (code != null) {
      switch (code) {
        case "NoSuchKey": return Reason.NO_SUCH_KEY;
        case "NoSuchBucket": return Reason.NO_SUCH_BUCKET;
        case "NoSuchUpload": return Reason.NO_SUCH_UPLOAD;
        case "PreconditionFailed": return Reason.PRECONDITION_FAILED;
        case "BucketAlreadyOwnedByYou", "BucketAlreadyExists": return Reason.BUCKET_ALREADY_OWNED;
        case "BucketNotEmpty": return Reason.BUCKET_NOT_EMPTY;
        case "InvalidBucketName": return Reason.INVALID_BUCKET_NAME;
        case "KeyTooLongError": return Reason.KEY_TOO_LONG;
        case "InvalidArgument", "InvalidRequest", "InvalidRange": return Reason.INVALID_ARGUMENT;
        case "InvalidPart": return Reason.INVALID_PART;
        case "InvalidPartOrder": return Reason.INVALID_PART_ORDER;
        case "EntityTooSmall": return Reason.ENTITY_TOO_SMALL;
        case "ConditionalRequestConflict": return Reason.CONFLICT;
        case "NotImplemented": return Reason.NOT_IMPLEMENTED;
        case "SlowDown": return Reason.SLOW_DOWN;
        case "ServiceUnavailable", "InternalError": return Reason.UNAVAILABLE;
        default: break;
      }
    }
    return Reason.ofStatus(status, objectRequest);
  }

  /**
   * Builds an {@link S3Origin} with its own client. Required: {@link #endpoint} (any
   * S3-compatible store) unless the origin is AWS S3 itself; credentials default to the SDK's
   * default chain, {@link #anonymous()} sends unsigned requests.
   */
  public static final class Builder {
    private URI endpoint;
    private String region;
    private AwsCredentialsProvider credentials;
    private Boolean pathStyle;
    private Integer maxConnections;
    private Duration connectionTimeout;
    private Duration readTimeout;
    private Clock clock;

    private Builder() {}

    public Builder endpoint(URI value) {
      once(endpoint, "endpoint");
      Objects.requireNonNull(value, "endpoint");
      if (value.getScheme() == null || !(value.getScheme().equals("http") || value.getScheme().equals("https"))) {
        throw new IllegalArgumentException("Invalid origin endpoint: " + value + " (http or https URI)");
      }
      endpoint = value;
      return this;
    }

    /** Signing region; default us-east-1. */
    public Builder region(String value) {
      once(region, "region");
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("Invalid region: " + value);
      }
      region = value;
      return this;
    }

    public Builder credentials(String accessKey, String secretKey) {
      once(credentials, "credentials");
      if (accessKey == null || accessKey.isEmpty() || secretKey == null || secretKey.isEmpty()) {
        throw new IllegalArgumentException("Invalid origin credentials: access and secret key are required");
      }
      credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
      return this;
    }

    public Builder anonymous() {
      once(credentials, "credentials");
      credentials = AnonymousCredentialsProvider.create();
      return this;
    }

    /** Path-style addressing ({@code endpoint/bucket/key}); default true, as most stores want. */
    public Builder pathStyle(boolean value) {
      once(pathStyle, "pathStyle");
      pathStyle = value;
      return this;
    }

    /** Connections to the origin at most; default 256. */
    public Builder maxConnections(int value) {
      once(maxConnections, "maxConnections");
      if (value < 1) {
        throw new IllegalArgumentException("Invalid maxConnections: " + value + " (must be >= 1)");
      }
      maxConnections = value;
      return this;
    }

    public Builder connectionTimeout(Duration value) {
      once(connectionTimeout, "connectionTimeout");
      connectionTimeout = positive(value, "connectionTimeout");
      return this;
    }

    /** Longest silence while reading a response; default 60 s. */
    public Builder readTimeout(Duration value) {
      once(readTimeout, "readTimeout");
      readTimeout = positive(value, "readTimeout");
      return this;
    }

    /** Clock for write timestamps the store does not return; default UTC system clock. */
    public Builder clock(Clock value) {
      once(clock, "clock");
      clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    public S3Origin build() {
      String r = region != null ? region : "us-east-1";
      var http = NettyNioAsyncHttpClient.builder()
          .maxConcurrency(maxConnections != null ? maxConnections : 256)
          .maxPendingConnectionAcquires(100_000)
          .connectionTimeout(connectionTimeout != null ? connectionTimeout : Duration.ofSeconds(10))
          .readTimeout(readTimeout != null ? readTimeout : Duration.ofSeconds(60))
          .tcpKeepAlive(true);
      var b = S3AsyncClient.builder()
          .region(Region.of(r))
          .credentialsProvider(credentials != null ? credentials : DefaultCredentialsProvider.builder().build())
          .forcePathStyle(pathStyle == null || pathStyle)
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
          .httpClientBuilder(http)
          .overrideConfiguration(o -> o.retryStrategy(transportRetryOnly()));
      if (endpoint != null) {
        b.endpointOverride(endpoint);
      }
      return new S3Origin(b.build(), true, r, clock != null ? clock : Clock.systemUTC());
    }

    /**
     * One quick retry of a request that failed in transport (a pooled connection the store had
     * closed), nothing else: every other failure goes straight to the origin protection, which
     * owns retries, backoff and the circuit breaker. Without it a store that closes idle or
     * errored connections (s3proxy after a 404) turns a routine reconnect into an UNAVAILABLE
     * that counts against the breaker.
     */
    private static StandardRetryStrategy transportRetryOnly() {
      return StandardRetryStrategy.builder()
          .maxAttempts(2)
          .retryOnRootCauseInstanceOf(java.io.IOException.class)
          .circuitBreakerEnabled(false)
          .build();
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set");
      }
    }
  }
}
