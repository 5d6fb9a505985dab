package io.verglas.workers.api;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.catalog.TableIdentifier;
import java.util.List;
import org.junit.jupiter.api.Test;

class DataGrantsTest {
  private final DataGrants grants = DataGrants.of(List.of("shop.raw", "shop.prices"), List.of("shop.hourly"));

  @Test
  void writesNeedAWriteGrantAndReadsAnyGrant() {
    assertThatCode(() -> grants.checkWrite(TableIdentifier.of("shop", "hourly"))).doesNotThrowAnyException();
    assertThatCode(() -> grants.checkRead(TableIdentifier.of("shop", "hourly"))).doesNotThrowAnyException();
    assertThatCode(() -> grants.checkRead(TableIdentifier.of("shop", "raw"))).doesNotThrowAnyException();
    assertThatThrownBy(() -> grants.checkWrite(TableIdentifier.of("shop", "raw")))
        .isInstanceOf(DataGrantException.class)
        .hasMessage("Cannot write table shop.raw: the deployment is granted only [shop.hourly] for writes");
  }

  @Test
  void queuesAreGrantedPerVerbAndTheRefusalNamesTheDeployment() {
    QueueGrants queues = DataGrants.of(List.of(), List.of())
        .withQueues(QueueGrants.of(List.of("orders"), List.of("orders", "refunds"))).queues();
    assertThatCode(() -> queues.checkPublish("shop", "orders")).doesNotThrowAnyException();
    assertThatCode(() -> queues.checkConsume("shop", "refunds")).doesNotThrowAnyException();
    assertThatThrownBy(() -> queues.checkPublish("shop", "refunds"))
        .isInstanceOf(DataGrantException.class)
        .hasMessage("Cannot publish to queue refunds: deployment shop is not granted publish on it"
            + " (granted publish: [orders])");
    assertThatThrownBy(() -> grants.queues().checkConsume("shop", "orders"))
        .as("table grants alone grant no queue")
        .hasMessage("Cannot consume from queue orders: deployment shop is not granted consume on it"
            + " (granted consume: [])");
    assertThatThrownBy(() -> QueueGrants.of(List.of("no/slash"), List.of()))
        .hasMessageStartingWith("Invalid queue name: 'no/slash'");
  }

  @Test
  void tablesOutsideTheGrantsAreNamedWithWhatIsGranted() {
    assertThatThrownBy(() -> grants.checkRead(TableIdentifier.of("hr", "salaries")))
        .isInstanceOf(DataGrantException.class)
        .hasMessage("Cannot read table hr.salaries: the deployment is granted only "
            + "[shop.hourly, shop.prices, shop.raw]");
  }
}
