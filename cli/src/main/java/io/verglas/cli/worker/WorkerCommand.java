package io.verglas.cli.worker;

import picocli.CommandLine.Command;

/** {@code verglas worker}: tools for worker authors. */
@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Tools for worker authors.", subcommands = {WorkerCheckCommand.class})
public final class WorkerCommand {}
