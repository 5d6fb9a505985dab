package io.verglas.cache.origin.azure;

import static io.verglas.cache.origin.azure.AzureTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.util.BinaryData;
import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Version-exact reads through a cache node on Azure: an object overwritten between two reads
 * (behind the node's back, or through it while readers run) is served whole in one version or
 * not at all, never as blocks of two versions.
 */
class AzureVersionExactReadTest {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();
  private static final int MIB = CacheNode.MIB;
  private static final String BUCKET = "exact";

  private final TestingClock clock = new TestingClock();
  private AzureOrigin origin;
  private CacheNode node;

  @BeforeEach
  void start() {
    origin = AZURITE.sharedKeyOrigin();
    node = CacheNode.builder().credentials("exact-access", "exact-secret").origin(origin).clock(clock)
        .blockSize(MIB).dramCapacityBytes(16L * MIB).metadataTtl(Duration.ofMinutes(5)).build().start();
    if (!origin.bucketExists(BUCKET).join()) {
      origin.createBucket(BUCKET).join();
    }
  }

  @AfterEach
  void stop() {
    node.close();
    origin.close();
  }

  private S3Client client() {
    return S3Client.builder().endpointOverride(node.endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
        .httpClient(ApacheHttpClient.create()).credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create("exact-access", "exact-secret"))).build();
  }

  @Test
  void anOverwriteBehindTheNodeBetweenTwoReadsNeverMixesVersions() {
    byte[] v1 = bytes(3 * MIB, 1);
    byte[] v2 = bytes(3 * MIB, 2);
    try (S3Client s3 = client()) {
      s3.putObject(b -> b.bucket(BUCKET).key("obj"), RequestBody.fromBytes(v1));
      // first read: block 0 and v1's metadata are cached
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj").range("bytes=0-99")).asByteArray())
          .isEqualTo(Arrays.copyOf(v1, 100));
      // another writer replaces the object in Azure; the node's metadata still says v1
      AZURITE.adminClient().getBlobContainerClient(BUCKET).getBlobClient("obj")
          .upload(BinaryData.fromBytes(v2), true);
      // second read: block 0 is in the cache, blocks 1 and 2 only in v2 (the ETag-pinned reads fail)
      byte[] second = readOrNull(s3, "obj");
      assertThat(second == null || Arrays.equals(second, v2))
          .as("the second read is v2 whole or fails, never blocks of v1 and v2").isTrue();
      clock.shift(Duration.ofMinutes(10));
      assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("obj")).asByteArray()).isEqualTo(v2);
    }
  }

  @Test
  void readersRacingOverwritesSeeOneVersionAtATime() throws Exception {
    byte[] a = bytes(3 * MIB, 3);
    byte[] b = bytes(3 * MIB, 4);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger whole = new AtomicInteger();
    List<String> mixed = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (S3Client writer = client()) {
      writer.putObject(r -> r.bucket(BUCKET).key("flip"), RequestBody.fromBytes(a));
      List<Future<?>> readers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        readers.add(pool.submit(() -> {
          try (S3Client reader = client()) {
            while (!stop.get()) {
              clock.shift(Duration.ofSeconds(20));   // metadata expires now and then mid-race
              byte[] got = readOrNull(reader, "flip");
              if (got == null) {
                continue;
              }
              if (Arrays.equals(got, a) || Arrays.equals(got, b)) {
                whole.incrementAndGet();
              } else {
                mixed.add("a read of " + got.length + " bytes matched neither version");
              }
            }
          }
        }));
      }
      for (int i = 0; i < 10; i++) {
        byte[] next = i % 2 == 0 ? b : a;
        writer.putObject(r -> r.bucket(BUCKET).key("flip"), RequestBody.fromBytes(next));
        Thread.sleep(20);
      }
      stop.set(true);
      for (Future<?> r : readers) {
        r.get(120, TimeUnit.SECONDS);
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(mixed).isEmpty();
    assertThat(whole.get()).isPositive();
  }

  /** The whole object, or null if the node refused or cut the response (the version changed). */
  private static byte[] readOrNull(S3Client s3, String key) {
    try {
      return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
