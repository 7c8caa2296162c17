using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;

namespace FunctionApp.Tests.TestKit;

/// <summary>The audit trail for tests below the host that are not about it: the store off, as <c>Audit:Disabled</c> does in development; event 7001 still logged.</summary>
internal static class TestAudit
{
    /// <summary>The tests' audit key (a development key of no other use).</summary>
    public const string LocalSigningKey = "whsk_BqW0wePrBYGceff+hArlGXeocFUFc+DEqZTUPdZ/SjI=";

    public static AuditTrail Off(AuditLog? log = null)
    {
        var options = new AuditOptions { Disabled = true };
        return new AuditTrail(
            log ?? new AuditLog(NullLoggerFactory.Instance),
            Options.Create(options),
            () => throw new InvalidOperationException("The audit store is off in this test."),
            new AuditSigningKey(options, null),
            TimeProvider.System,
            TestServices.Metrics(),
            NullLogger<AuditTrail>.Instance,
            "test");
    }
}
