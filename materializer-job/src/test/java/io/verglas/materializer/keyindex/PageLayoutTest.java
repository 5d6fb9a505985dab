package io.verglas.materializer.keyindex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Linear hashing's rules the write-back relies on: a key's page exists, growing by one page
 * moves only keys of the page split, and a key's page in a later layout descends from its page
 * in an earlier one.
 */
class PageLayoutTest {
  @Property(tries = 2000)
  void aKeysPageDescendsFromItsPageInEveryEarlierLayout(
      @ForAll @LongRange(min = 0) long hash,
      @ForAll @IntRange(min = 1, max = 5000) int pages,
      @ForAll @IntRange(min = 0, max = 5000) int growth) {
    int later = pages + growth;
    int page = PageLayout.pageOf(hash, pages);
    int laterPage = PageLayout.pageOf(hash, later);
    assertThat(page).isBetween(0, pages - 1);
    assertThat(laterPage).isBetween(0, later - 1);
    assertThat(PageLayout.ancestorIn(laterPage, pages)).isEqualTo(page);
  }

  @Property(tries = 2000)
  void growingByOnePageMovesOnlyKeysOfThePageSplit(
      @ForAll @LongRange(min = 0) long hash,
      @ForAll @IntRange(min = 1, max = 100_000) int pages) {
    int before = PageLayout.pageOf(hash, pages);
    int after = PageLayout.pageOf(hash, pages + 1);
    if (after != before) {
      assertThat(before).isEqualTo(PageLayout.parentOf(pages));
      assertThat(after).isEqualTo(pages);
    }
  }

  @Test
  void pagesHoldThirtyTwoEntriesOnAverage() {
    assertThat(PageLayout.pagesFor(0)).isZero();
    assertThat(PageLayout.pagesFor(1)).isEqualTo(1);
    assertThat(PageLayout.pagesFor(32)).isEqualTo(1);
    assertThat(PageLayout.pagesFor(33)).isEqualTo(2);
    assertThat(PageLayout.pagesFor(500_000)).isEqualTo(15_625);
    assertThatThrownBy(() -> PageLayout.pagesFor(32L * PageLayout.MAX_PAGES + 1))
        .hasMessageContaining("more than 1073741824 pages");
  }

  @Test
  void stateKeysNameTheirKeyGroup() {
    assertThat(PageLayout.pageKey(17, 4711)).isEqualTo("17/4711");
    assertThat(PageLayout.keyGroupOf("17/4711")).isEqualTo(17);
    assertThat(PageLayout.keyGroupOf(PageLayout.metaKey(3))).isEqualTo(3);
    assertThat(PageLayout.isPageKey("17/4711")).isTrue();
    assertThat(PageLayout.isPageKey(PageLayout.metaKey(17))).isFalse();
    assertThatThrownBy(() -> PageLayout.keyGroupOf("nope"))
        .hasMessage("Cannot read key index state key: nope");
  }

  @Test
  void groupMetaRoundTripsAndRefusesWhatCannotBe() {
    GroupMeta meta = GroupMeta.fromBytes(new GroupMeta(300, 9_600).toBytes());
    assertThat(meta.pages()).isEqualTo(300);
    assertThat(meta.entries()).isEqualTo(9_600);
    assertThat(GroupMeta.fromBytes(null).pages()).isZero();
    assertThat(new GroupMeta(1, 1).toBytes()).containsExactly(1, 1, 1);
    assertThatThrownBy(() -> new GroupMeta(0, 5))
        .hasMessage("Cannot describe a key group of 5 entries in 0 pages");
    assertThatThrownBy(() -> meta.set(299, 9_700))
        .hasMessage("Cannot shrink a key group from 300 pages, 9600 entries to 299, 9700");
    assertThatThrownBy(() -> GroupMeta.fromBytes(new byte[] {2, 1, 1}))
        .hasMessage("Cannot read key group meta of unknown version 2");
  }
}
