package io.verglas.cache.origin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObservedOriginTest {
  @TempDir Path dir;

  @Test
  void tellsEachRequestWithItsBucketAndKeyAndPassesItOn() {
    List<String> seen = new ArrayList<>();
    Origin origin = new ObservedOrigin(new LocalDirectoryOrigin(dir),
        (bucket, key) -> seen.add(bucket + "/" + key));

    origin.createBucket("bkt").join();
    origin.put("bkt", "ns/t1/data/a", ObjectBody.ofBytes("x".getBytes(StandardCharsets.UTF_8)),
        WriteOptions.DEFAULT).join();
    ObjectMeta meta = origin.head("bkt", "ns/t1/data/a").join();
    byte[] read = origin.readRange("bkt", "ns/t1/data/a", meta.etag(), 0, 1).join();
    ListPage page = origin.list(new ListRequest("bkt", "ns/t1/", null, null, null,
        ListRequest.MAX_KEYS)).join();

    assertThat(read).containsExactly('x');
    assertThat(page.objects()).hasSize(1);
    assertThat(seen).containsExactly("bkt/", "bkt/ns/t1/data/a", "bkt/ns/t1/data/a",
        "bkt/ns/t1/data/a", "bkt/ns/t1/");
  }
}
