package io.verglas.cache;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;

/**
 * A real cache node on a random port over a {@link LocalDirectoryOrigin} in a temp directory,
 * with AWS SDK clients pointed at it.
 */
public final class TestingCacheNode implements AutoCloseable {
  public static final String ACCESS_KEY = "verglas-test";
  public static final String SECRET_KEY = "verglas-test-secret";
  public static final String BUCKET = "warehouse";

  public final Path root;
  public final LocalDirectoryOrigin localOrigin;
  public final TestingClock clock = new TestingClock();
  public final CacheNode node;
  public final S3Client s3;

  public TestingCacheNode(Path root) {
    this(root, o -> o, b -> { });
  }

  public TestingCacheNode(Path root, Function<Origin, Origin> wrap, Consumer<CacheNode.Builder> tune) {
    this.root = root;
    this.localOrigin = new LocalDirectoryOrigin(root);
    CacheNode.Builder builder = CacheNode.builder()
        .credentials(ACCESS_KEY, SECRET_KEY)
        .origin(wrap.apply(localOrigin))
        .clock(clock);
    tune.accept(builder);
    this.node = builder.build().start();
    this.s3 = client(ACCESS_KEY, SECRET_KEY);
    if (!java.nio.file.Files.isDirectory(root.resolve(BUCKET))) {
      s3.createBucket(CreateBucketRequest.builder().bucket(BUCKET).build());
    }
  }

  public S3Client client(String accessKey, String secretKey) {
    return client(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)));
  }

  public S3Client anonymousClient() {
    return client(AnonymousCredentialsProvider.create());
  }

  public S3Client client(AwsCredentialsProvider credentials) {
    return S3Client.builder()
        .endpointOverride(node.endpoint())
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(credentials)
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  public S3Client apacheClient() {
    return S3Client.builder()
        .endpointOverride(node.endpoint())
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .httpClient(ApacheHttpClient.builder().connectionTimeout(Duration.ofSeconds(5)).build())
        .build();
  }

  public S3AsyncClient asyncClient() {
    return S3AsyncClient.builder()
        .endpointOverride(node.endpoint())
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  @Override
  public void close() {
    s3.close();
    node.close();
    localOrigin.close();
  }
}
