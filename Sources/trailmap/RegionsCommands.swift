import ArgumentParser
import Foundation
import RegionManager
import TrailMapAPI

/// `trailmap regions ...`: what the app does with its map store.
struct RegionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "Browse, buy, install, uninstall, restore and update map regions (and areas around a point) from a TrailMap server.",
        subcommands: [
            RegionsListCommand.self, RegionsShowCommand.self, RegionsNearCommand.self, RegionsBuyCommand.self,
            RegionsInstallCommand.self, RegionsUninstallCommand.self, RegionsRestoreCommand.self,
            RegionsStatusCommand.self, RegionsUpdateCommand.self, RegionsSandboxRefundCommand.self, RegionsAreaCommand.self,
            RegionsTrailsCommand.self,
            RegionsProfileCommand.self
        ]
    )
}

struct RegionsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The catalog with each region's status.")
    @Option(name: .long, help: "Only this category and its subcategories, e.g. States or \"National Parks\".") var category: String?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let products = try await options.manager().list(category: category)
        if json { try RegionsOutput.json(products) } else { RegionsOutput.products(products) }
    }
}

struct RegionsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One region in detail.")
    @Argument(help: "Product id.") var id: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let product = try await options.manager().show(id)
        if json { try RegionsOutput.json(product) } else { RegionsOutput.product(product) }
    }
}

struct RegionsNearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "near", abstract: "Regions whose coverage holds a point.")
    @Argument(help: "LAT,LON in degrees, e.g. 40.34,-105.68.", transform: PointArgument.parse) var point: PointArgument
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let products = try await options.manager().near(latitude: point.latitude, longitude: point.longitude)
        if json { try RegionsOutput.json(products) } else { RegionsOutput.products(products) }
    }
}

struct RegionsBuyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "buy", abstract: "Buy a region through the sandbox store (nothing is bought if you own it).")
    @Argument(help: "Product id.") var id: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let outcome = try await options.manager().buy(id)
        if json { try RegionsOutput.json(BuyReport(outcome)); return }
        switch outcome {
        case let .free(p): TerminalText.print("\(p.title) is free: nothing to buy. Install it with `trailmap regions install \(id)`.")
        case let .alreadyOwned(_, message):
            TerminalText.print("\(message) Nothing was bought. Install it with `trailmap regions install \(id)`.")
        case let .purchased(p, result):
            TerminalText.print(
                """
                Bought \(p.title) for \(p.price.display) (transaction \(result.transactionId)). Install it with `trailmap regions install \
                \(id)`.
                """
            )
        }
    }
}

/// `--quiet` for commands that download.
struct DownloadOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress bar.") var quiet = false

    /// The progress printer; also makes Ctrl-C say that the download will resume.
    var printer: DownloadProgressPrinter {
        InterruptNotice.install()
        return DownloadProgressPrinter(quiet: quiet, killAfter: Self.testKillAfter)
    }

    /// Debug builds only (the tests' binary; never a release): `TRAILMAP_TEST_KILL_AFTER_BYTES=N`
    /// makes the process SIGKILL itself once N bytes are downloaded, for the kill -9 resume tests.
    static var testKillAfter: Int64? {
        #if DEBUG
        ProcessInfo.processInfo.environment["TRAILMAP_TEST_KILL_AFTER_BYTES"].flatMap(Int64.init)
        #else
        nil
        #endif
    }
}

struct RegionsInstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install", abstract: "Download (resuming an interrupted download), verify and install a region you own.")
    @Argument(help: "Product id.") var id: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var download: DownloadOptions
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let printer = download.printer
        let id = id
        let outcome = try await options.manager().install(id) { printer.report(id, $0) }
        if json { try RegionsOutput.json(outcome) } else { RegionsOutput.installed(outcome) }
    }
}

struct RegionsUninstallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "uninstall", abstract: "Delete a region's bundle; you keep the purchase.")
    @Argument(help: "Product id.") var id: String
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let outcome = try await options.manager().uninstall(id)
        if json { return try RegionsOutput.json(outcome) }
        TerminalText.print(
            """
            Uninstalled \(id), freeing \(ByteSize.format(Int(outcome.freedBytes))). You still own it: `trailmap regions install \(id)` \
            downloads it again for free.
            """
        )
        RegionsOutput.warn(outcome.warning)
    }
}

struct RegionsRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Install every region your account owns, and the free regions it has installed on other devices (e.g. on a new device).")
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var download: DownloadOptions
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let printer = download.printer
        let items = try await options.manager().restore { printer.report($0, $1) }
        if json {
            try RegionsOutput.json(items)
        } else if items.isEmpty {
            TerminalText.print("Your account owns no regions yet, and has no free region installed on another device.")
        } else {
            RegionsOutput.table(
                ["ID", "RESULT", "NOTE"], items.map { [$0.productId, $0.result.replacingOccurrences(of: "_", with: " "), $0.message ?? ""] }
            )
        }
        if items.contains(where: { $0.result == "failed" }) { throw ExitCode.failure }
    }
}

struct RegionsStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Installed regions, storage used and updates available.")
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let report = try await options.manager().status()
        if json { try RegionsOutput.json(report) } else { RegionsOutput.status(report) }
    }
}

struct RegionsUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "update", abstract: "Install newer versions of installed regions.")
    @Argument(help: "Product id (default: every installed region).") var id: String?
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var download: DownloadOptions
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let printer = download.printer
        let outcomes = try await options.manager().update(id) { printer.report($0, $1) }
        if json { try RegionsOutput.json(outcomes); return }
        if outcomes.isEmpty { TerminalText.print("Everything installed is up to date.") }
        outcomes.forEach(RegionsOutput.installed)
    }
}

struct RegionsSandboxRefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-refund",
        abstract: "Sandbox store only: refund (or revoke, or reverse a refund of) your purchase through a signed store notification.")
    @Argument(help: "Product id.") var id: String
    @Option(name: .long, help: "The notification: REFUND, REVOKE or REFUND_REVERSED.", transform: RefundTypeArgument.parse)
    var type: RefundTypeArgument = .refund
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var options: RegionOptions

    func run() async throws {
        let transaction = try await options.manager().sandboxNotify(id, type: type.rawValue)
        if json { return try RegionsOutput.json(CommandReports.Refund(productId: id, type: type.rawValue, transactionId: transaction)) }
        TerminalText.print("The store sent \(type.rawValue) for transaction \(transaction) of \(id). See `trailmap regions status`.")
    }
}
