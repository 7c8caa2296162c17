using WidgetSigning.Keys;

namespace WidgetSigning.Signing;

/// <summary>
/// What one signature is made for: the receivers (each signed with its own keys, in one pass over the canonical bytes),
/// the forms, where <c>webhook-id</c> comes from, and the memory budget lease the canonical form is charged to.
/// </summary>
internal sealed class SignRequest
{
    /// <summary>The most receivers one request signs for, whatever a host allows.</summary>
    public const int MaxReceivers = SigningLimits.MaxReceiversPerRequest;

    private readonly IReadOnlyList<ReceiverId> _receivers = [];

    /// <summary>The receivers, in the order their signatures are listed; at least one, none twice.</summary>
    /// <exception cref="ArgumentException">None, more than <see cref="MaxReceivers"/>, or one named twice.</exception>
    public required IReadOnlyList<ReceiverId> Receivers
    {
        get => _receivers;
        init
        {
            ArgumentNullException.ThrowIfNull(value);
            if (value.Count is 0 or > MaxReceivers)
            {
                throw new ArgumentException($"A signature is made for 1 to {MaxReceivers} receivers, not {value.Count}.", nameof(Receivers));
            }

            for (var i = 1; i < value.Count; i++)
            {
                for (var j = 0; j < i; j++)
                {
                    if (value[i] == value[j])
                    {
                        throw new ArgumentException($"Receiver '{value[i]}' is named twice.", nameof(Receivers));
                    }
                }
            }

            _receivers = value;
        }
    }

    /// <summary>The forms to make; default both.</summary>
    public SignatureForms Forms { get; init; } = SignatureForms.Both;

    /// <summary>
    /// Where <c>webhook-id</c> is derived from with the canonical bytes (an <c>Idempotency-Key</c>, a queue message id:
    /// <see cref="WebhookIdSeed"/>); with neither this nor <see cref="WebhookId"/>, a new <c>msg_</c> id.
    /// </summary>
    public WebhookIdSeed? IdSeed { get; init; }

    /// <summary>A <c>webhook-id</c> used as given (known-answer vectors); must follow <see cref="StandardWebhooks.IsValidId"/>. Not with <see cref="IdSeed"/>.</summary>
    public string? WebhookId { get; init; }

    /// <summary>The lease the canonical form's pooled blocks are charged to; the signed envelope then owns it. None: no budget.</summary>
    public EnvelopeBudgetLease? Lease { get; init; }

    /// <summary>A request for one receiver.</summary>
    public static SignRequest For(ReceiverId receiver, SignatureForms forms = SignatureForms.Both) => new() { Receivers = [receiver], Forms = forms };
}
