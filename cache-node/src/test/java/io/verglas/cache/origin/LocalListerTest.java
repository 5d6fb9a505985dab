package io.verglas.cache.origin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Listing compared against a model, keys laid out on disk as {@link LocalLayout} maps them: sort all keys by code point, filter by prefix, roll up at the
 * delimiter, page by max-keys. Keys are drawn from a small alphabet so that prefixes, common
 * prefixes and the ordering traps ('-' and '.' sort before '/') occur often.
 */
class LocalListerTest {
  @Provide
  Arbitrary<List<String>> keySets() {
    // 'x' becomes U+1F600 (a surrogate pair); U+FF21 sorts after it in UTF-16 but before it in UTF-8.
    // Empty segments make directory markers ("a/"), leading slashes and "a//b"; '%' makes names
    // that need the escape of LocalLayout.
    Arbitrary<String> segment = Arbitraries.strings().withChars('a', 'b', '-', '.', 'é', 'x', '\uFF21', '%')
        .ofMinLength(0).ofMaxLength(3)
        .filter(s -> !s.equals(".") && !s.equals(".."))
        .map(s -> s.replace("x", "\uD83D\uDE00"));
    Arbitrary<String> key = segment.list().ofMinSize(1).ofMaxSize(3).map(parts -> String.join("/", parts));
    return key.list().ofMinSize(0).ofMaxSize(40);
  }

  /** S3 order, computed independently of the code under test: unsigned UTF-8 bytes. */
  private static final java.util.Comparator<String> UTF8_ORDER = (a, b) -> java.util.Arrays.compareUnsigned(
      a.getBytes(java.nio.charset.StandardCharsets.UTF_8), b.getBytes(java.nio.charset.StandardCharsets.UTF_8));

  @Property(tries = 100)
  void pagesMatchTheModel(@ForAll("keySets") List<String> candidates,
      @ForAll("prefixes") String prefix,
      @ForAll boolean useDelimiter,
      @ForAll @IntRange(min = 1, max = 7) int maxKeys) throws IOException {
    Path root = Files.createTempDirectory("lister");
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(root, 2)) {
      origin.createBucket("bkt").join();
      TreeSet<String> keys = new TreeSet<>(UTF8_ORDER);
      for (String k : candidates) {
        // Skip keys that clash with a stored key's path (a key and keys under it).
        if (keys.stream().anyMatch(e -> e.startsWith(k + "/") || k.startsWith(e + "/"))) {
          continue;
        }
        Path file = root.resolve("bkt");
        for (String segment : k.split("/", -1)) {
          file = file.resolve(LocalLayout.fileName(segment));
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, k);
        keys.add(k);
      }
      String delimiter = useDelimiter ? "/" : null;
      List<String> expected = model(keys, prefix, delimiter);

      List<String> actual = new ArrayList<>();
      String token = null;
      int pages = 0;
      do {
        ListPage page = origin.list(new ListRequest("bkt", prefix, delimiter, null, token, maxKeys)).join();
        assertThat(page.objects().size() + page.commonPrefixes().size()).isLessThanOrEqualTo(maxKeys);
        List<String> entries = new ArrayList<>();
        page.objects().forEach(o -> entries.add(o.key()));
        entries.addAll(page.commonPrefixes());
        entries.sort(UTF8_ORDER);
        actual.addAll(entries);
        token = page.truncated() ? page.nextContinuationToken() : null;
        assertThat(++pages).isLessThan(100);
      } while (token != null);
      assertThat(actual).isEqualTo(expected);
    } finally {
      DurableFiles.deleteRecursively(root);
    }
  }

  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.of("", "a", "a/", "b-", "a.", "é/", "a/b", "/", "a//", "%");
  }

  private static List<String> model(TreeSet<String> keys, String prefix, String delimiter) {
    List<String> out = new ArrayList<>();
    for (String k : keys) {
      if (!k.startsWith(prefix)) {
        continue;
      }
      int at = delimiter == null ? -1 : k.indexOf(delimiter, prefix.length());
      String entry = at < 0 ? k : k.substring(0, at + delimiter.length());
      if (out.isEmpty() || !out.get(out.size() - 1).equals(entry)) {
        out.add(entry);
      }
    }
    return out;
  }
}
