package io.verglas.cache.origin.azure;

import com.azure.core.http.HttpClient;
import com.azure.core.util.FluxUtil;
import com.azure.core.util.HttpClientOptions;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobBeginCopySourceRequestConditions;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.CopyStatusType;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlobBeginCopyOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.verglas.cache.origin.BucketInfo;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * An {@link Origin} on Azure Blob Storage, through the Azure SDK's asynchronous blob client.
 * Buckets are containers of one storage account (same names; Azure's naming rules apply), keys
 * are block blob names.
 *
 * <p>ETags are Azure's own (a new one for every write), quoted: the ETag a client sees on PUT,
 * HEAD, GET, a listing, a copy or CompleteMultipartUpload is the one the store enforces. Version
 * atomicity: range reads carry {@code If-Match} with the expected ETag, so an overwrite between
 * two reads of a cached object makes the second fail with PRECONDITION_FAILED instead of mixing
 * versions. Conditional writes map to Azure's {@code If-None-Match: *} and {@code If-Match}.
 * Multipart uploads are staged blocks ({@link AzureMultipart}). Names under
 * {@value #RESERVED_PREFIX} hold our own state and are neither listed nor accessible as keys.
 *
 * <p>The SDK does not retry: a node retries through its origin protection, which knows which
 * calls may be repeated. Authentication is a storage account's shared key or a SAS token.
 */
public final class AzureOrigin implements Origin {
  /** Blob names this origin keeps for itself (multipart markers). */
  public static final String RESERVED_PREFIX = ".verglas/";

  private final BlobServiceAsyncClient service;
  private final String sasToken;
  private final AzureMultipart multipart;
  private final ExecutorService completions;

  private AzureOrigin(BlobServiceAsyncClient service, String sasToken) {
    this.service = service;
    this.sasToken = sasToken;
    this.multipart = new AzureMultipart(this::container);
    AtomicInteger n = new AtomicInteger();
    this.completions = Executors.newFixedThreadPool(Math.max(4, Runtime.getRuntime().availableProcessors()), r -> {
      Thread t = new Thread(r, "verglas-azure-origin-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  public static Builder builder() {
    return new Builder();
  }

  // ---- buckets

  @Override
  public CompletableFuture<List<BucketInfo>> listBuckets() {
    return call(null, null, () -> service.listBlobContainers()
        .map(c -> new BucketInfo(c.getName(), AzureMetadata.instant(c.getProperties().getLastModified())))
        .collectList());
  }

  /** A one-entry listing, not a container query: a container SAS may list but not read the container. */
  @Override
  public CompletableFuture<Boolean> bucketExists(String bucket) {
    return call(bucket, null, () -> container(bucket).listBlobs(new ListBlobsOptions().setMaxResultsPerPage(1))
        .byPage().next().map(page -> true)
        .onErrorResume(e -> AzureErrors.status(e) == 404, e -> Mono.just(false)));
  }

  @Override
  public CompletableFuture<Void> createBucket(String bucket) {
    return call(bucket, null, () -> container(bucket).create());
  }

  /** Refuses a container with blobs, as S3 refuses a non-empty bucket (checked, then deleted). */
  @Override
  public CompletableFuture<Void> deleteBucket(String bucket) {
    BlobContainerAsyncClient container = container(bucket);
    return call(bucket, null, () -> container.listBlobs(new ListBlobsOptions().setMaxResultsPerPage(100))
        .filter(b -> !b.getName().startsWith(RESERVED_PREFIX))
        .hasElements()
        .flatMap(hasBlobs -> hasBlobs
            ? Mono.error(new OriginException(Reason.BUCKET_NOT_EMPTY,
                "The bucket you tried to delete is not empty: " + bucket))
            : container.delete()));
  }

  // ---- reads

  @Override
  public CompletableFuture<ObjectMeta> head(String bucket, String key) {
    return call(bucket, key, () -> blob(bucket, key).getProperties().map(AzureMetadata::meta));
  }

  @Override
  public CompletableFuture<Optional<ObjectMeta>> revalidate(String bucket, String key, String etag) {
    BlobRequestConditions ifChanged = new BlobRequestConditions().setIfNoneMatch(etag);
    return call(bucket, key, () -> blob(bucket, key).getPropertiesWithResponse(ifChanged)
        .map(r -> Optional.of(AzureMetadata.meta(r.getValue())))
        .onErrorResume(e -> AzureErrors.status(e) == 304, e -> Mono.just(Optional.empty())));
  }

  @Override
  public CompletableFuture<byte[]> readRange(String bucket, String key, String expectedEtag, long offset, int length) {
    if (length == 0) {
      return CompletableFuture.completedFuture(new byte[0]);
    }
    BlobRequestConditions pinned = new BlobRequestConditions().setIfMatch(expectedEtag);
    return call(bucket, key, () -> blob(bucket, key)
        .downloadStreamWithResponse(new BlobRange(offset, (long) length),
            new DownloadRetryOptions().setMaxRetryRequests(0), pinned, false)
        .flatMap(r -> FluxUtil.collectBytesInByteBufferStream(r.getValue())));
  }

  @Override
  public CompletableFuture<ListPage> list(ListRequest request) {
    return call(request.bucket(), null, () -> AzureListing.list(container(request.bucket()), request));
  }

  // ---- writes

  @Override
  public CompletableFuture<PutResult> put(String bucket, String key, ObjectBody body, WriteOptions options) {
    return call(bucket, key, () -> {
      BlockBlobSimpleUploadOptions upload = new BlockBlobSimpleUploadOptions(AzureBodies.flux(body), body.length())
          .setHeaders(AzureMetadata.headers(options))
          .setMetadata(AzureMetadata.toBlob(options))
          .setRequestConditions(conditions(options.condition()));
      return blob(bucket, key).getBlockBlobAsyncClient().uploadWithResponse(upload)
          .map(r -> new PutResult(AzureErrors.etag(r.getValue().getETag()),
              AzureMetadata.instant(r.getValue().getLastModified())));
    });
  }

  @Override
  public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
    if (condition.mustNotExist()) {
      return CompletableFuture.failedFuture(new OriginException(Reason.NOT_IMPLEMENTED,
          "Cannot delete with If-None-Match: *"));
    }
    return call(bucket, key, () -> blob(bucket, key)
        .deleteWithResponse(DeleteSnapshotsOptionType.INCLUDE, conditions(condition))
        .then()
        .onErrorResume(e -> condition.isNone() && isBlobNotFound(e), e -> Mono.empty()));
  }

  /**
   * Copy Blob, waited for. With replacement metadata the copy is followed by setting the new
   * headers and metadata, each conditional on the ETag the step before produced.
   */
  @Override
  public CompletableFuture<PutResult> copy(CopyRequest request) {
    if (request.sourceVersionId() != null && !NULL_VERSION.equals(request.sourceVersionId())) {
      return CompletableFuture.failedFuture(new OriginException(Reason.INVALID_ARGUMENT,
          "Invalid version id specified: " + request.sourceVersionId()
              + " (this origin keeps only the current version, version id \"null\")"));
    }
    return call(request.bucket(), request.key(), () -> {
      checkKey(request.sourceKey());
      BlobAsyncClient target = blob(request.bucket(), request.key());
      String source = container(request.sourceBucket()).getBlobAsyncClient(request.sourceKey()).getBlobUrl();
      BlobBeginCopyOptions copy = new BlobBeginCopyOptions(sasToken == null ? source : source + "?" + sasToken)
          .setSourceRequestConditions(new BlobBeginCopySourceRequestConditions()
              .setIfMatch(request.expectedSourceEtag()))
          .setDestinationRequestConditions(conditions(request.targetCondition()))
          .setPollInterval(Duration.ofMillis(100));
      Mono<PutResult> copied = target.beginCopy(copy).last().flatMap(done -> {
        if (done.getValue().getCopyStatus() != CopyStatusType.SUCCESS) {
          return Mono.error(new IllegalStateException("Cannot copy to " + request.bucket() + "/" + request.key()
              + ": the copy ended " + done.getValue().getCopyStatus() + " " + done.getValue().getError()));
        }
        // the ETag of the copy itself (a later read could see another writer's version)
        return done.getValue().getETag() != null
            ? Mono.just(new PutResult(AzureErrors.etag(done.getValue().getETag()),
                AzureMetadata.instant(done.getValue().getLastModified())))
            : target.getProperties().map(p -> new PutResult(AzureErrors.etag(p.getETag()),
                AzureMetadata.instant(p.getLastModified())));
      });
      return request.replacement() == null ? copied : copied.flatMap(c -> replaceMetadata(target, c, request.replacement()));
    });
  }

  private static Mono<PutResult> replaceMetadata(BlobAsyncClient target, PutResult copied, WriteOptions replacement) {
    return target.setHttpHeadersWithResponse(AzureMetadata.headers(replacement),
            new BlobRequestConditions().setIfMatch(copied.etag()))
        .flatMap(r -> target.setMetadataWithResponse(AzureMetadata.toBlob(replacement),
            new BlobRequestConditions().setIfMatch(r.getHeaders().getValue("ETag"))))
        .map(r -> new PutResult(AzureErrors.etag(r.getHeaders().getValue("ETag")), copied.lastModified()));
  }

  // ---- multipart

  @Override
  public CompletableFuture<String> createMultipartUpload(String bucket, String key, WriteOptions options) {
    return call(bucket, key, () -> {
      checkKey(key);
      return multipart.create(bucket, key, options);
    });
  }

  @Override
  public CompletableFuture<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    return call(upload.bucket(), upload.key(), () -> multipart.uploadPart(upload, partNumber, body));
  }

  @Override
  public CompletableFuture<PutResult> completeMultipartUpload(MultipartUpload upload, List<CompletedPart> parts,
      WriteCondition condition) {
    return call(upload.bucket(), upload.key(), () -> multipart.complete(upload, parts, condition));
  }

  @Override
  public CompletableFuture<Void> abortMultipartUpload(MultipartUpload upload) {
    return call(upload.bucket(), upload.key(), () -> multipart.abort(upload));
  }

  @Override
  public CompletableFuture<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    return call(upload.bucket(), upload.key(), () -> multipart.listParts(upload, partNumberMarker, maxParts));
  }

  @Override
  public CompletableFuture<UploadListing> listUploads(UploadListRequest request) {
    return call(request.bucket(), null, () -> multipart.listUploads(request));
  }

  /** Stops the completion threads; calls still in flight fail. */
  @Override
  public void close() {
    completions.shutdown();
  }

  // ---- helpers

  static BlobRequestConditions conditions(WriteCondition c) {
    BlobRequestConditions conditions = new BlobRequestConditions();
    if (c.mustNotExist()) {
      conditions.setIfNoneMatch("*");
    } else if (c.ifMatchEtag() != null) {
      conditions.setIfMatch(c.ifMatchEtag());
    }
    return conditions;
  }

  private BlobContainerAsyncClient container(String bucket) {
    return service.getBlobContainerAsyncClient(bucket);
  }

  private BlobAsyncClient blob(String bucket, String key) {
    checkKey(key);
    return container(bucket).getBlobAsyncClient(key);
  }

  /**
   * Refuses keys this origin reserves and keys Azure would store under another name: it turns a
   * backslash into '/' and drops the dots that end a path segment (so "." and ".." too).
   */
  private static void checkKey(String key) {
    if (key.startsWith(RESERVED_PREFIX)) {
      throw invalidKey(key, "names under " + RESERVED_PREFIX + " are reserved for the cache node");
    }
    if (key.indexOf('\\') >= 0) {
      throw invalidKey(key, "Azure Blob Storage stores a backslash as '/'");
    }
    for (String segment : key.split("/", -1)) {
      if (segment.endsWith(".")) {
        throw invalidKey(key, "Azure Blob Storage drops the dots ending a path segment");
      }
    }
  }

  private static OriginException invalidKey(String key, String why) {
    return new OriginException(Reason.INVALID_KEY, "Cannot use the key " + key + ": " + why);
  }

  private static boolean isBlobNotFound(Throwable e) {
    return AzureErrors.unwrap(e) instanceof com.azure.storage.blob.models.BlobStorageException b
        && b.getStatusCode() == 404 && (b.getErrorCode() == null || "BlobNotFound".equals(b.getErrorCode().toString()));
  }

  /**
   * Runs an SDK call; whatever fails, synchronously or not, completes the future as an origin
   * failure. The future completes on this origin's completion threads, not on the HTTP client's
   * event loop, so what the node chains onto it never stalls the SDK's I/O.
   */
  private <T> CompletableFuture<T> call(String bucket, String key, Supplier<Mono<T>> sdk) {
    try {
      return sdk.get().toFuture().handleAsync((value, error) -> {
        if (error != null) {
          throw AzureErrors.translate(error, bucket, key);
        }
        return value;
      }, completions);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(AzureErrors.translate(e, bucket, key));
    }
  }

  /**
   * Builds an {@link AzureOrigin}. Required: {@link #account} or {@link #endpoint} (Azurite and
   * other emulators: {@code http://127.0.0.1:10000/devstoreaccount1}), and one credential:
   * {@link #sharedKey} or {@link #sasToken}.
   */
  public static final class Builder {
    private String account;
    private URI endpoint;
    private String sharedKey;
    private String sasToken;
    private Integer maxConnections;
    private Duration connectionTimeout;
    private Duration readTimeout;

    private Builder() {}

    /** The storage account; the endpoint defaults to {@code https://ACCOUNT.blob.core.windows.net}. */
    public Builder account(String value) {
      once(account, "account");
      if (value == null || !value.matches("[a-z0-9]{3,24}")) {
        throw new IllegalArgumentException("Invalid storage account: " + value + " (3 to 24 lower-case letters and digits)");
      }
      account = value;
      return this;
    }

    public Builder endpoint(URI value) {
      once(endpoint, "endpoint");
      Objects.requireNonNull(value, "endpoint");
      if (value.getScheme() == null || !(value.getScheme().equals("http") || value.getScheme().equals("https"))) {
        throw new IllegalArgumentException("Invalid origin endpoint: " + value + " (http or https URI)");
      }
      endpoint = value;
      return this;
    }

    /** The account's shared key (base64), for which {@link #account} is required. */
    public Builder sharedKey(String value) {
      once(sharedKey, "sharedKey");
      if (sasToken != null) {
        throw new IllegalStateException("Cannot set a shared key: a SAS token was set");
      }
      if (value == null || value.isEmpty()) {
        throw new IllegalArgumentException("Invalid shared key: empty");
      }
      sharedKey = value;
      return this;
    }

    /** A SAS token (with or without the leading '?'). */
    public Builder sasToken(String value) {
      once(sasToken, "sasToken");
      if (sharedKey != null) {
        throw new IllegalStateException("Cannot set a SAS token: a shared key was set");
      }
      if (value == null || value.isBlank() || value.equals("?")) {
        throw new IllegalArgumentException("Invalid SAS token: empty");
      }
      sasToken = value.startsWith("?") ? value.substring(1) : value;
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

    public AzureOrigin build() {
      if (account == null && endpoint == null) {
        throw new IllegalStateException("Cannot build an Azure origin: set the account or the endpoint");
      }
      if (sharedKey == null && sasToken == null) {
        throw new IllegalStateException("Cannot build an Azure origin: set a shared key or a SAS token");
      }
      if (sharedKey != null && account == null) {
        throw new IllegalStateException("Cannot build an Azure origin: a shared key needs the account name");
      }
      Duration read = readTimeout != null ? readTimeout : Duration.ofSeconds(60);
      HttpClient http = HttpClient.createDefault(new HttpClientOptions()
          .setMaximumConnectionPoolSize(maxConnections != null ? maxConnections : 256)
          .setConnectTimeout(connectionTimeout != null ? connectionTimeout : Duration.ofSeconds(10))
          .setReadTimeout(read)
          .setResponseTimeout(read)
          .setWriteTimeout(read));
      BlobServiceClientBuilder b = new BlobServiceClientBuilder()
          .endpoint(endpoint != null ? endpoint.toString() : "https://" + account + ".blob.core.windows.net")
          .httpClient(http)
          .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Duration) null, null, null, null));
      if (sharedKey != null) {
        b.credential(new StorageSharedKeyCredential(account, sharedKey));
      } else {
        b.sasToken(sasToken);
      }
      return new AzureOrigin(b.buildAsyncClient(), sasToken);
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
