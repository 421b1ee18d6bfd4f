"""The optimizers beyond SGD/Adam/RMSprop/Adagrad against PyTorch: Adamax, NAdam, RAdam,
Adadelta, Rprop, ASGD, Adafactor, LBFGS, Muon and SparseAdam; and the Optimizer hooks.

The reference numbers were produced by PyTorch 2.13 (CPU) on the same inputs; PyTorch is not
needed to run these tests. ``FIXED``: rng = np.random.default_rng(7); w0 (6,), m0 (3, 4), then
20 pairs of gradients (6,), (3, 4) drawn in that order; ``opt = getattr(torch.optim,
name)([w, m], **kw)``; 20 x (w.grad, m.grad = pair; opt.step()); the final w and m
flattened. ``TRAINING``: as in tests/test_optim.py (Linear(4, 8), Tanh, Linear(8, 3) with the
weights drawn from default_rng(14), CrossEntropyLoss, 10 steps). ``LBFGS``: the 5-d
Rosenbrock function from x0 = default_rng(3).standard_normal(5), three ``opt.step(closure)``:
(final x, the three losses step returned, state func_evals, state n_iter). ``MUON``: a
weight of the given shape from default_rng(9).standard_normal, then 20 gradients of that shape
drawn after it, one ``opt.step()`` each; the final weight flattened.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn, optim
from symgrad.optim.optimizer import (
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)

FIXED = [('Adamax', {'lr': 0.01},
          [0.03701519966125488, 0.3179083466529846, -0.2382911890745163, -0.9044467210769653,
           -0.4309167265892029, -1.0232102870941162, 0.07547728717327118, 1.3574726581573486,
           -0.46150311827659607, -0.5583895444869995, 0.5030030012130737, 0.3640790581703186,
           0.1502859741449356, -0.9287858009338379, -0.013049245811998844, 0.7796294689178467,
           -1.3790010213851929, -0.4472251236438751]),
         ('Adamax', {'lr': 0.02, 'weight_decay': 0.1, 'maximize': True},
          [-0.06954113394021988, 0.2524104714393616, -0.3400020897388458, -0.8391799926757812,
           -0.4912739396095276, -0.8962037563323975, 0.028423340991139412, 1.2744168043136597,
           -0.5463093519210815, -0.7346204519271851, 0.44993284344673157, 0.3263399004936218,
           0.014636890031397343, -0.9192043542861938, -0.0603473000228405, 0.5196326971054077,
           -1.2524245977401733, -0.4682113528251648]),
         ('NAdam', {'lr': 0.01},
          [0.01333623006939888, 0.31473663449287415, -0.24474860727787018, -0.9019300937652588,
           -0.43358173966407776, -1.062193512916565, 0.07582376152276993, 1.3719450235366821,
           -0.4585953652858734, -0.5672904849052429, 0.5366219282150269, 0.41636645793914795,
           0.14487797021865845, -0.9127591252326965, -0.032877784222364426, 0.7714696526527405,
           -1.3559516668319702, -0.47338926792144775]),
         ('NAdam', {'lr': 0.01, 'weight_decay': 0.1, 'momentum_decay': 0.01},
          [0.013043074868619442, 0.3096059262752533, -0.2412332445383072, -0.8839445114135742,
           -0.42618685960769653, -1.0344823598861694, 0.0746111273765564, 1.3440450429916382,
           -0.45245033502578735, -0.5605624318122864, 0.5048473477363586, 0.40432101488113403,
           0.14271000027656555, -0.9017666578292847, -0.03249286860227585, 0.7643460631370544,
           -1.3341981172561646, -0.46526840329170227]),
         ('NAdam', {'lr': 0.01, 'weight_decay': 0.1, 'decoupled_weight_decay': True},
          [0.012840250506997108, 0.30864641070365906, -0.23964104056358337, -0.8839807510375977,
           -0.42484232783317566, -1.0421407222747803, 0.07448277622461319, 1.345165729522705,
           -0.44918960332870483, -0.5558345317840576, 0.5266550779342651, 0.4090195596218109,
           0.14227540791034698, -0.8944189548492432, -0.03241109848022461, 0.7565048933029175,
           -1.3289966583251953, -0.4643731415271759]),
         ('RAdam', {'lr': 0.01},
          [0.04715269058942795, 0.30978527665138245, -0.23088204860687256, -0.8969761729240417,
           -0.43829214572906494, -0.9949199557304382, 0.07597654312849045, 1.3391368389129639,
           -0.44838955998420715, -0.5704977512359619, 0.48574212193489075, 0.3601303696632385,
           0.14181895554065704, -0.9539714455604553, -0.005525168962776661, 0.7427291870117188,
           -1.3791210651397705, -0.43708160519599915]),
         ('RAdam', {'lr': 0.01, 'weight_decay': 0.1},
          [0.04703711345791817, 0.30796483159065247, -0.2294057458639145, -0.8915674686431885,
           -0.43563973903656006, -0.9886343479156494, 0.07559540867805481, 1.3311878442764282,
           -0.4456583857536316, -0.567013680934906, 0.4827011823654175, 0.35781747102737427,
           0.14109665155410767, -0.9486324191093445, -0.005405540112406015, 0.7388108968734741,
           -1.3711270093917847, -0.43437230587005615]),
         ('RAdam',
          {'lr': 0.01,
           'weight_decay': 0.1,
           'decoupled_weight_decay': True,
           'betas': (0.8, 0.9)},
          [0.040816087275743484, 0.31612640619277954, -0.2182215005159378, -0.8843039870262146,
           -0.4286394417285919, -1.001922607421875, 0.0785561203956604, 1.3194917440414429,
           -0.42449796199798584, -0.5466102361679077, 0.49919670820236206, 0.3783155381679535,
           0.15241295099258423, -0.9228653907775879, -0.013204913586378098, 0.7552860975265503,
           -1.3425605297088623, -0.44839349389076233]),
         ('Adadelta', {},
          [0.001824839971959591, 0.30223146080970764, -0.2666933536529541, -0.8903378248214722,
           -0.44962021708488464, -1.0283217430114746, 0.0662156492471695, 1.3538823127746582,
           -0.48488521575927734, -0.6047422885894775, 0.5110417008399963, 0.39498376846313477,
           0.11405625194311142, -0.9227688908576965, -0.03272322565317154, 0.7167239785194397,
           -1.34835684299469, -0.46427270770072937]),
         ('Adadelta', {'lr': 0.5, 'rho': 0.8, 'weight_decay': 0.1},
          [0.0014644695911556482, 0.2997119724750519, -0.2708755433559418, -0.8877161741256714,
           -0.45215287804603577, -1.0001914501190186, 0.06207543984055519, 1.3407926559448242,
           -0.4885026216506958, -0.6139718890190125, 0.4933531880378723, 0.3662306070327759,
           0.10852786153554916, -0.9258125424385071, -0.03051784634590149, 0.7021241784095764,
           -1.3437516689300537, -0.4590403139591217]),
         ('Rprop', {},
          [0.2265976518392563, 0.30083152651786804, -0.22116850316524506, -0.8778491616249084,
           -0.43342477083206177, -1.0178369283676147, 0.046760786324739456, 1.3538264036178589,
           -0.4843920171260834, -0.5487338900566101, 0.5166872143745422, 0.36597585678100586,
           0.14087824523448944, -0.918720006942749, -0.007514544762670994, 0.9443985819816589,
           -1.4138997793197632, -0.4521433115005493]),
         ('Rprop',
          {'lr': 0.05, 'etas': (0.3, 1.5), 'step_sizes': (0.001, 0.08), 'maximize': True},
          [-0.7068877816200256, 0.27009549736976624, -0.5241228342056274, -0.9366975426673889,
           -0.5230567455291748, -0.8607124090194702, 0.12149360030889511, 1.2753278017044067,
           -0.536106526851654, -1.0076327323913574, 0.4034561216831207, 0.3597828149795532,
           -0.0541045106947422, -0.9743540287017822, -0.12531010806560516, -0.07315972447395325,
           -0.9991685152053833, -0.5045907497406006]),
         ('ASGD', {},
          [0.002421773737296462, 0.311972051858902, -0.236378014087677, -0.8925546407699585,
           -0.432836651802063, -1.055614948272705, 0.08562377095222473, 1.374935269355774,
           -0.44600412249565125, -0.5683890581130981, 0.5282230377197266, 0.4082961678504944,
           0.14003099501132965, -0.9135199785232544, -0.040072787553071976, 0.7603051662445068,
           -1.3411835432052612, -0.47702521085739136]),
         ('ASGD', {'lr': 0.05, 'lambd': 0.01, 'alpha': 0.5, 't0': 5, 'weight_decay': 0.1},
          [-0.0074080792255699635, 0.32831668853759766, -0.06886938214302063,
           -0.7993327379226685, -0.3050733208656311, -1.2012008428573608, 0.17348290979862213,
           1.372470736503601, -0.22541996836662292, -0.3204120099544525, 0.6266065835952759,
           0.5694060921669006, 0.25276699662208557, -0.747576892375946, -0.08106265217065811,
           0.9121679067611694, -1.1858375072479248, -0.5065571069717407]),
         ('Adafactor', {},
          [0.0013542415108531713, 0.30432477593421936, -0.26191768050193787,
           -0.8909806609153748, -0.44688132405281067, -1.0385774374008179, 0.07719041407108307,
           1.3648055791854858, -0.4663797616958618, -0.5971897840499878, 0.5235955119132996,
           0.3965985178947449, 0.1292700618505478, -0.908351719379425, -0.04242076352238655,
           0.7651159167289734, -1.345653772354126, -0.47032076120376587]),
         ('Adafactor',
          {'lr': 0.05,
           'beta2_decay': -0.5,
           'eps': (0.001, 0.01),
           'd': 2.0,
           'weight_decay': 0.1},
          [0.01825704611837864, 0.281402587890625, -0.18216466903686523, -0.8017712831497192,
           -0.3648119568824768, -1.1270112991333008, 0.13889215886592865, 1.309260606765747,
           -0.3060326874256134, -0.4496598541736603, 0.5792935490608215, 0.5089918971061707,
           0.21935442090034485, -0.6929843425750732, -0.07405129820108414, 0.9565668106079102,
           -1.2386529445648193, -0.47727447748184204])]

STATE_KEYS = {'ASGD': (['ax', 'eta', 'mu', 'step'], ['ax', 'eta', 'mu', 'step']),
              'Adadelta': (['acc_delta', 'square_avg', 'step'],
                           ['acc_delta', 'square_avg', 'step']),
              'Adafactor': (['step', 'variance'], ['col_var', 'row_var', 'step']),
              'Adamax': (['exp_avg', 'exp_inf', 'step'], ['exp_avg', 'exp_inf', 'step']),
              'NAdam': (['exp_avg', 'exp_avg_sq', 'mu_product', 'step'],
                        ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']),
              'RAdam': (['exp_avg', 'exp_avg_sq', 'step'], ['exp_avg', 'exp_avg_sq', 'step']),
              'Rprop': (['prev', 'step', 'step_size'], ['prev', 'step', 'step_size'])}

TRAINING = {'Adamax': ({'lr': 0.01},
                       [1.4039348363876343, 1.3663402795791626, 1.3323603868484497,
                        1.301687479019165, 1.274000644683838, 1.2489838600158691,
                        1.2263448238372803, 1.2058167457580566, 1.1871627569198608,
                        1.1701741218566895]),
            'NAdam': ({'lr': 0.01},
                      [1.4039348363876343, 1.36428964138031, 1.337372899055481,
                       1.313834309577942, 1.29178786277771, 1.2707117795944214,
                       1.2504777908325195, 1.2310792207717896, 1.2125372886657715,
                       1.1948702335357666]),
            'RAdam': ({'lr': 0.01},
                      [1.4039348363876343, 1.4001083374023438, 1.3963154554367065,
                       1.3925561904907227, 1.3888309001922607, 1.3851393461227417,
                       1.3841696977615356, 1.382943034172058, 1.3814953565597534,
                       1.379852294921875]),
            'Adadelta': ({'lr': 1.0},
                         [1.4039348363876343, 1.391845941543579, 1.3798116445541382,
                          1.367975115776062, 1.3563995361328125, 1.3451138734817505,
                          1.3341306447982788, 1.3234525918960571, 1.3130775690078735,
                          1.302999496459961]),
            'Rprop': ({'lr': 0.01},
                      [1.4039348363876343, 1.366340160369873, 1.3244245052337646,
                       1.2788536548614502, 1.2310453653335571, 1.182679533958435,
                       1.1357522010803223, 1.0922813415527344, 1.0522747039794922,
                       1.0142934322357178]),
            'ASGD': ({'lr': 0.1},
                     [1.4039348363876343, 1.3666645288467407, 1.333561897277832,
                      1.3041216135025024, 1.2778875827789307, 1.2544561624526978,
                      1.2334719896316528, 1.2146248817443848, 1.1976455450057983,
                      1.182300090789795]),
            'Adafactor': ({'lr': 0.01},
                          [1.4039348363876343, 1.3838388919830322, 1.3645811080932617,
                           1.3461636304855347, 1.3286826610565186, 1.3120795488357544,
                           1.2963006496429443, 1.2812950611114502, 1.2670128345489502,
                           1.2534048557281494])}

LBFGS = [({'line_search_fn': 'strong_wolfe', 'history_size': 2, 'max_iter': 7}, 'float64',
          ([0.7502499565128691, 0.5471424531367366, 0.29436161515672343, 0.056133159891917236,
            0.0007374049985638685],
           [8386.208627922739, 7.796177120702229, 3.3919449246113453], 25, 19)),
         ({'lr': 0.05, 'max_iter': 5, 'history_size': 3}, 'float64',
          ([1.5329142614196478, -2.0045562659523473, 0.5434228137437842, -0.4023081134945793,
            -0.37555684042976806],
           [8386.208627922739, 6205.79570402987, 4451.530161702915], 15, 15)),
         ({'lr': 0.1, 'max_iter': 4}, 'float32',
          ([1.2933427095413208, -1.7391858100891113, 0.5680003762245178, -0.3400821387767792,
            -0.3473871648311615],
           [8386.2080078125, 5256.36865234375, 3110.605224609375], 12, 12))]

MUON = [({'lr': 0.02}, (4, 6),
         [-0.56611567735672, 0.22736842930316925, -1.6853042840957642, 0.5567073822021484,
          1.119275450706482, -0.3678816258907318, 0.49556833505630493, 0.05679218843579292,
          -0.37662938237190247, -0.7795055508613586, -1.9853589534759521, 1.2227962017059326,
          0.09203749150037766, 2.4770877361297607, 0.896113932132721, 0.2514946758747101,
          -0.6942649483680725, 1.288077712059021, -0.4683217406272888, 1.5456030368804932,
          -0.4302331209182739, 0.07636739313602448, -1.4427855014801025, 2.2040317058563232]),
        ({'lr': 0.02, 'nesterov': False, 'weight_decay': 0.0}, (7, 3),
         [-0.8911171555519104, 0.2696710526943207, -1.6973975896835327, 0.7922003269195557,
          1.147786259651184, -0.6159324645996094, 0.42658868432044983, -0.013826040551066399,
          -0.5801611542701721, -1.0458645820617676, -1.8895705938339233, 1.6321758031845093,
          0.14256256818771362, 2.772944211959839, 0.6128458380699158, 0.24073360860347748,
          -0.7015488147735596, 1.3813892602920532, -0.1641175001859665, 1.414599061012268,
          -0.31448352336883545]),
        ({'adjust_lr_fn': 'match_rms_adamw', 'lr': 0.05, 'momentum': 0.9}, (5, 5),
         [-0.6541188955307007, 0.20455077290534973, -1.4219878911972046, 0.6892526149749756,
          1.0718048810958862, -0.3925527334213257, 0.440467894077301, 0.33333131670951843,
          -0.32028844952583313, -0.8357206583023071, -2.000467300415039, 1.1768649816513062,
          -0.050238873809576035, 2.227084159851074, 0.7708998322486877, 0.4127597212791443,
          -0.7795171141624451, 1.2269922494888306, -0.45601487159729004, 1.3613314628601074,
          -0.3893478214740753, 0.13162800669670105, -1.4930810928344727, 2.2506511211395264,
          -0.13664589822292328])]

ERRORS = [
    ('Adamax', {'lr': -1.0}, ValueError, 'Invalid learning rate: -1.0'),
    ('Adamax', {'betas': (1.0, 0.9)}, ValueError, 'Invalid beta parameter at index 0: 1.0'),
    ('Adamax', {'eps': -0.001}, ValueError, 'Invalid epsilon value: -0.001'),
    ('NAdam', {'momentum_decay': -0.1}, ValueError, 'Invalid momentum_decay value: -0.1'),
    ('NAdam', {'weight_decay': -1}, ValueError, 'Invalid weight_decay value: -1'),
    ('RAdam', {'betas': (0.9, 1.5)}, ValueError, 'Invalid beta parameter at index 1: 1.5'),
    ('Adadelta', {'rho': 1.5}, ValueError, 'Invalid rho value: 1.5'),
    ('Adadelta', {'lr': -0.5}, ValueError, 'Invalid learning rate: -0.5'),
    ('Rprop', {'etas': (1.5, 1.2)}, ValueError, 'Invalid eta values: 1.5, 1.2'),
    ('ASGD', {'weight_decay': -0.1}, ValueError, 'Invalid weight_decay value: -0.1'),
    ('Adafactor', {'lr': -1.0}, ValueError, 'Learning rate should be >= 0 but is: -1.0'),
    ('Adafactor', {'beta2_decay': 0.5}, ValueError, 'beta2_decay should be <= 0 but is: 0.5'),
    ('Adafactor', {'eps': (-1.0, 0.001)}, ValueError, 'epsilon1 should be >= 0 but is: -1.0'),
    ('Adafactor', {'d': 0.5}, ValueError, 'Clipping threshold d should be >= 1 but is: 0.5'),
    ('SparseAdam', {'lr': 0.0}, ValueError, 'Invalid learning rate: 0.0'),
    ('SparseAdam', {'eps': 0.0}, ValueError, 'Invalid epsilon value: 0.0'),
    ('LBFGS', {'lr': -1.0}, ValueError, 'Invalid learning rate: -1.0'),
    ('Muon', {'lr': -1.0}, ValueError, 'Learning rate should be >= 0 but is: -1.0'),
    ('Muon', {'momentum': -1}, ValueError, 'momentum should be >= 0 but is: -1'),
    ('Muon', {'weight_decay': -1}, ValueError, 'weight decay should be >= 0 but is: -1'),
    ('Muon', {'adjust_lr_fn': 'x'}, ValueError, 'Adjust learning rate function x is not supported'),
    ('NAdam', {'fused': True}, TypeError,
     "NAdam.__init__() got an unexpected keyword argument 'fused'"),
]


def _draws():
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal(6).astype(np.float32)
    m0 = rng.standard_normal((3, 4)).astype(np.float32)
    grads = [(rng.standard_normal(6).astype(np.float32),
              rng.standard_normal((3, 4)).astype(np.float32)) for _ in range(20)]
    return w0, m0, grads


def _fixed_run(name, kwargs, steps=20):
    w0, m0, grads = _draws()
    w, m = nn.Parameter(symgrad.tensor(w0)), nn.Parameter(symgrad.tensor(m0))
    opt = getattr(optim, name)([w, m], **kwargs)
    for g, h in grads[:steps]:
        w.grad, m.grad = symgrad.tensor(g), symgrad.tensor(h)
        opt.step()
    return np.concatenate([w.detach().numpy().ravel(), m.detach().numpy().ravel()]), opt


def _ulps(a, b):
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


@pytest.mark.parametrize("name, kwargs, expected", FIXED,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(FIXED)])
def test_twenty_steps_match_pytorch_in_float32(name, kwargs, expected):
    got, _ = _fixed_run(name, kwargs)
    expected = np.array(expected, dtype=np.float32)
    # PyTorch's order of float32 operations: equal or a few ulps apart after 20 steps
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    assert _ulps(got, expected).max() <= 4


def test_most_updates_are_bit_for_bit_pytorchs():
    exact = [(n, k) for n, k, _ in FIXED if n in ("Adamax", "Rprop", "ASGD")]
    for name, kwargs in exact:
        got, _ = _fixed_run(name, kwargs)
        expected = next(e for n, k, e in FIXED if n == name and k == kwargs)
        np.testing.assert_array_equal(got, np.array(expected, dtype=np.float32))


@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_state_has_pytorchs_keys_and_step_counter(name):
    _, opt = _fixed_run(name, {}, steps=3)
    state = opt.state_dict()["state"]
    assert (sorted(state[0]), sorted(state[1])) == STATE_KEYS[name]
    assert state[0]["step"].dtype == symgrad.float32 and state[0]["step"].item() == 3.0


@pytest.mark.parametrize("name", sorted(TRAINING))
def test_training_run_follows_pytorch_losses(name):
    kwargs, expected = TRAINING[name]
    rng = np.random.default_rng(14)
    x = symgrad.tensor(rng.standard_normal((32, 4)).astype(np.float32))
    y = symgrad.tensor(rng.integers(0, 3, 32))
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    with symgrad.no_grad():
        for p, scale in zip(net.parameters(), (0.5, 0.1, 0.5, 0.1), strict=True):
            p.copy_(symgrad.tensor((rng.standard_normal(tuple(p.shape)) * scale)
                                   .astype(np.float32)))
    opt = getattr(optim, name)(net.parameters(), **kwargs)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.testing.assert_allclose(losses, expected, rtol=5e-6)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("name", sorted(STATE_KEYS))
def test_state_dict_round_trip_continues_identically(name):
    _, opt = _fixed_run(name, {"lr": 0.01}, steps=4)
    params = opt.param_groups[0]["params"]
    buffer = io.BytesIO()
    symgrad.save({"params": params, "opt": opt.state_dict()}, buffer)
    buffer.seek(0)
    saved = symgrad.load(buffer)
    copies = [nn.Parameter(p.detach().clone()) for p in saved["params"]]
    opt2 = getattr(optim, name)(copies, lr=123.0)
    opt2.load_state_dict(saved["opt"])
    assert opt2.param_groups[0]["lr"] == 0.01
    _, _, grads = _draws()
    for ps, o in ((params, opt), (copies, opt2)):
        for g, h in grads[4:7]:
            ps[0].grad, ps[1].grad = symgrad.tensor(g), symgrad.tensor(h)
            o.step()
    for a, b in zip(params, copies, strict=True):
        assert a.tolist() == b.tolist()


def _rosenbrock_run(kwargs, dtype):
    rng = np.random.default_rng(3)
    x = nn.Parameter(symgrad.tensor(rng.standard_normal(5).astype(dtype)))
    opt = optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch's LBFGS converts the loss without warning
        losses = [opt.step(closure).item() for _ in range(3)]
    return x, opt, losses


@pytest.mark.parametrize("kwargs, dtype, expected", LBFGS, ids=["wolfe64", "fixed64", "fixed32"])
def test_lbfgs_follows_pytorchs_iterations(kwargs, dtype, expected):
    x, opt, losses = _rosenbrock_run(kwargs, dtype)
    final, expected_losses, func_evals, n_iter = expected
    state = opt.state[x]
    assert (state["func_evals"], state["n_iter"]) == (func_evals, n_iter)
    rtol = 1e-10 if dtype == "float64" else 2e-5  # float32: the closure's own rounding
    np.testing.assert_allclose(x.detach().numpy(), final, rtol=rtol)
    np.testing.assert_allclose(losses, expected_losses, rtol=rtol)


def test_lbfgs_state_dict_has_pytorchs_keys_and_round_trips():
    x, opt, _ = _rosenbrock_run({"line_search_fn": "strong_wolfe", "max_iter": 3}, "float64")
    state = opt.state_dict()["state"][0]
    assert sorted(state) == ["H_diag", "al", "d", "func_evals", "n_iter", "old_dirs",
                             "old_stps", "prev_flat_grad", "prev_loss", "ro", "t"]
    assert isinstance(state["d"], symgrad.Tensor) and state["d"].shape == (5,)
    assert all(isinstance(v, symgrad.Tensor) for v in state["old_dirs"])
    fresh = optim.LBFGS([nn.Parameter(x.detach().clone())])
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0]["line_search_fn"] == "strong_wolfe"
    assert fresh.state[fresh.param_groups[0]["params"][0]]["n_iter"] == state["n_iter"]


def test_lbfgs_refuses_groups_and_other_line_searches():
    a, b = nn.Parameter(symgrad.ones(1)), nn.Parameter(symgrad.ones(1))
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (a * 3).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match=r"^only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_sparse_adam_refuses_dense_gradients_as_pytorch():
    w = nn.Parameter(symgrad.ones(2))
    opt = optim.SparseAdam([w])
    opt.step()  # no gradient: nothing to do
    w.sum().backward()
    with pytest.raises(RuntimeError, match=r"^SparseAdam does not support dense gradients"):
        opt.step()
    assert w.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name, kwargs, error, message", ERRORS,
                         ids=[f"{n}-{i}" for i, (n, *_) in enumerate(ERRORS)])
def test_bad_arguments_raise_pytorchs_errors(name, kwargs, error, message):
    param = nn.Parameter(symgrad.ones(1, 1) if name == "Muon" else symgrad.ones(1))
    with pytest.raises(error) as info:
        getattr(optim, name)([param], **kwargs)
    assert str(info.value) == message


def test_differentiable_is_refused_clearly():
    with pytest.raises(RuntimeError, match="differentiable=True"):
        optim.Adamax([nn.Parameter(symgrad.ones(1))], differentiable=True)


def test_per_group_options_and_add_param_group():
    a, b = nn.Parameter(symgrad.tensor([1.0])), nn.Parameter(symgrad.tensor([1.0]))
    opt = optim.Rprop([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.3, "etas": (0.4, 1.1)})
    assert opt.param_groups[1]["step_sizes"] == (1e-6, 50)
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.7)


def test_maximize_ascends():
    w = nn.Parameter(symgrad.tensor([1.0]))
    opt = optim.Adamax([w], lr=0.1, maximize=True)
    w.sum().backward()
    opt.step()
    assert w.item() == pytest.approx(1.1)


# ---------------------------------------------------------------------- hooks
def test_step_hooks_run_in_pytorchs_order_and_can_be_removed():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.NAdam([w])
    calls = []
    handles = [
        register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global pre")),
        opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", a[1:], k))),
        opt.register_step_post_hook(lambda o, a, k: calls.append("post")),
        register_optimizer_step_post_hook(lambda o, a, k: calls.append("global post")),
    ]
    try:
        opt.step()
    finally:
        for handle in handles:
            handle.remove()
    assert calls == ["global pre", ("pre", (), {}), "post", "global post"]
    opt.step()
    assert len(calls) == 4


def test_step_pre_hook_can_replace_arguments():
    w = nn.Parameter(symgrad.tensor([2.0]))
    opt = optim.LBFGS([w], max_iter=1, lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    opt.register_step_pre_hook(lambda o, args, kwargs: ((o,), {"closure": closure}))
    assert opt.step(None).item() == 4.0  # the hook's closure ran
    bad = optim.SGD([w], lr=0.1)
    bad.register_step_pre_hook(lambda o, args, kwargs: "nope")
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        bad.step()


def test_state_dict_hooks():
    w = nn.Parameter(symgrad.ones(1))
    opt = optim.Adadelta([w], lr=0.5)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: seen.append("first"), prepend=True)
    opt.register_state_dict_post_hook(lambda o, sd: sd["param_groups"][0].update(rho=0.5))
    state_dict = opt.state_dict()
    assert seen == ["first", "pre"] and state_dict["param_groups"][0]["rho"] == 0.5
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {**sd, "param_groups": [{**sd["param_groups"][0], "lr": 0.25}]})
    opt.register_load_state_dict_post_hook(lambda o: seen.append("loaded"))
    opt.load_state_dict(state_dict)
    assert opt.param_groups[0]["lr"] == 0.25 and opt.param_groups[0]["rho"] == 0.5
    assert seen[-1] == "loaded"
    assert state_dict["param_groups"][0]["lr"] == 0.5  # the caller's dict is left alone


@pytest.mark.parametrize("kwargs, shape, expected", MUON, ids=["nesterov", "plain", "adamw-rms"])
def test_muon_matches_pytorch_bit_for_bit(kwargs, shape, expected):
    # the Newton-Schulz iteration runs in bfloat16 in PyTorch; symgrad rounds as it rounds
    rng = np.random.default_rng(9)
    w = nn.Parameter(symgrad.tensor(rng.standard_normal(shape).astype(np.float32)))
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(20)]
    opt = optim.Muon([w], **kwargs)
    for g in grads:
        w.grad = symgrad.tensor(g)
        opt.step()
    np.testing.assert_array_equal(w.detach().numpy().ravel(), np.float32(expected))
    assert sorted(opt.state_dict()["state"][0]) == ["momentum_buffer"]


def test_muon_takes_only_matrices():
    with pytest.raises(ValueError, match=r"^Muon only supports 2D parameters whereas we found "
                                         r"a parameter with size: symgrad.Size\(\[2\]\)$"):
        optim.Muon([nn.Parameter(symgrad.ones(2))])


def test_named_parameters_give_param_names_as_pytorch():
    model = nn.Linear(2, 1)
    opt = optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["params"] == [model.weight, model.bias]
    # PyTorch 2.13's layout: the names first, the indices last
    assert opt.state_dict()["param_groups"] == [{
        "param_names": ["weight", "bias"], "lr": 0.1, "momentum": 0, "dampening": 0,
        "weight_decay": 0, "nesterov": False, "maximize": False, "foreach": None,
        "differentiable": False, "fused": None, "params": [0, 1]}]
    with pytest.raises(ValueError, match=r"^all optimizer param groups should be with/without "
                                         r"names. cannot add param group without names"):
        opt.add_param_group({"params": [nn.Parameter(symgrad.ones(1))]})
    with pytest.raises(ValueError, match=r"^all optimizer params should be with/without "
                                         r"names. Some param names are missing$"):
        optim.SGD([("w", model.weight), model.bias], lr=0.1)
    unnamed = optim.SGD([{"params": [model.weight, model.bias], "lr": 0.5}], lr=0.1)
    saved = unnamed.state_dict()
    opt.load_state_dict(saved)  # names kept when the saved groups have none
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["lr"] == 0.5
