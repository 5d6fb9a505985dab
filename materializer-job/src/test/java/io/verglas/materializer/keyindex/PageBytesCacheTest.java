package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The page bytes cache stays within its budget, keeping the pages used last. */
class PageBytesCacheTest {
  private static final int PAGE = 1000;
  private static final long ONE = PAGE + PageBytesCache.ENTRY_OVERHEAD;

  @Test
  void evictsTheLeastRecentlyUsedPagesBeyondItsBudget() {
    PageBytesCache cache = new PageBytesCache(3 * ONE);
    cache.put(0, 1, new byte[PAGE]);
    cache.put(0, 2, new byte[PAGE]);
    cache.put(1, 1, new byte[PAGE]);
    assertThat(cache.get(0, 1)).isNotNull(); // used: page (0, 2) is now the eldest
    cache.put(1, 2, new byte[PAGE]);
    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.bytes()).isEqualTo(3 * ONE);
    assertThat(cache.get(0, 2)).isNull();
    assertThat(cache.get(0, 1)).isNotNull();
    assertThat(cache.get(1, 2)).isNotNull();
  }

  @Test
  void replacementsAndRemovalsAreAccounted() {
    PageBytesCache cache = new PageBytesCache(10 * ONE);
    cache.put(3, 7, new byte[PAGE]);
    cache.put(3, 7, new byte[2 * PAGE]);
    assertThat(cache.bytes()).isEqualTo(2 * PAGE + PageBytesCache.ENTRY_OVERHEAD);
    assertThat(cache.get(3, 7)).hasSize(2 * PAGE);
    cache.put(3, 7, null);
    assertThat(cache.get(3, 7)).isNull();
    assertThat(cache.bytes()).isZero();
    assertThat(cache.get(7, 3)).as("key group and page are not interchangeable").isNull();
  }

  @Test
  void aPageLargerThanTheBudgetIsNotKept() {
    PageBytesCache cache = new PageBytesCache(ONE);
    cache.put(0, 0, new byte[PAGE]);
    cache.put(0, 1, new byte[5 * PAGE]);
    assertThat(cache.bytes()).isLessThanOrEqualTo(ONE);
    assertThat(cache.get(0, 1)).isNull();
  }

  @Test
  void aBudgetOfNothingKeepsNothing() {
    PageBytesCache cache = new PageBytesCache(0);
    cache.put(0, 0, new byte[PAGE]);
    assertThat(cache.get(0, 0)).isNull();
    assertThatThrownBy(() -> new PageBytesCache(-1))
        .hasMessage("Cannot cache pages in -1 bytes");
  }
}
