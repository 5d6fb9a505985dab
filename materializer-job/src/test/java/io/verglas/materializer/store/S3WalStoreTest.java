package io.verglas.materializer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.verglas.materializer.testing.TestingS3;
import io.verglas.wal.StreamHighWater;
import io.verglas.wal.WalLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

class S3WalStoreTest {
  private static final WalLayout LAYOUT = WalLayout.defaults();
  private static TestingS3 s3;
  private static S3Client client;

  @BeforeAll
  static void start() throws Exception {
    s3 = TestingS3.start("wal");
    client = s3.endpoint().newClient();
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    s3.close();
  }

  @Test
  void deletesMoreSegmentsThanOneRequestTakesAndRaisesEachStreamsMarkToItsHighest() {
    int many = S3WalStore.MAX_DELETE_KEYS + 205;
    List<String> keys = new ArrayList<>(put("many", 1, many));
    keys.addAll(put("few", 7, 3));
    keys.add(LAYOUT.segmentKey("few", 3)); // never written: deleting it succeeds

    Map<String, Integer> requests = new ConcurrentHashMap<>();
    try (S3WalStore store = new S3WalStore(countingClient(requests), s3.endpoint().bucket(),
        LAYOUT)) {
      store.delete(keys);
    }

    // one mark read and write per stream, two DeleteObjects requests, no DeleteObject
    assertThat(requests).containsOnly(entry("GetObject", 2), entry("PutObject", 2),
        entry("DeleteObjects", 2));
    assertThat(s3.list(LAYOUT.streamPrefix("many")))
        .containsExactly(LAYOUT.highWaterKey("many"));
    assertThat(s3.list(LAYOUT.streamPrefix("few"))).containsExactly(LAYOUT.highWaterKey("few"));
    assertThat(mark("many")).isEqualTo(many);
    assertThat(mark("few")).isEqualTo(9);
  }

  @Test
  void deletingAnEarlierSegmentLaterNeverLowersTheMark() {
    List<String> later = put("rising", 10, 2);
    List<String> earlier = put("rising", 4, 1);
    try (S3WalStore store = S3WalStore.open(s3.endpoint(), LAYOUT)) {
      store.delete(later);
    }
    try (S3WalStore restarted = S3WalStore.open(s3.endpoint(), LAYOUT)) {
      restarted.delete(earlier.get(0));
    }

    assertThat(mark("rising")).isEqualTo(11);
    assertThat(s3.list(LAYOUT.streamPrefix("rising")))
        .containsExactly(LAYOUT.highWaterKey("rising"));
  }

  private static S3Client countingClient(Map<String, Integer> requests) {
    return s3.endpoint().newClient(override -> override.addExecutionInterceptor(
        new ExecutionInterceptor() {
          @Override
          public void beforeExecution(Context.BeforeExecution context,
              ExecutionAttributes attributes) {
            requests.merge(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), 1,
                Integer::sum);
          }
        }));
  }

  private static List<String> put(String stream, long first, int count) {
    List<String> keys = new ArrayList<>();
    for (long sequence = first; sequence < first + count; sequence++) {
      String key = LAYOUT.segmentKey(stream, sequence);
      client.putObject(b -> b.bucket(s3.endpoint().bucket()).key(key),
          RequestBody.fromBytes(new byte[] {1}));
      keys.add(key);
    }
    return keys;
  }

  private static long mark(String stream) {
    return StreamHighWater.read(client, s3.endpoint().bucket(), LAYOUT, stream);
  }
}
